/**
 * The bad-input catalogue: what an attacker with a valid key (or none) can send. Every answer is the
 * contract's JSON error with a request id, never a crash, never a 500, never a stack trace in the log,
 * and never an effect on another account.
 */
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  json,
  pointProvidersAt,
  startFakes,
  startTestRouter,
  type Fakes,
  type TestRouter,
} from '../e2e/router-harness.js';
import { rawExchange } from './process-harness.js';

const UA = 'router-tests/1.0';

describe('bad input through the public interface', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let attacker: { accountId: string; key: string };
  // The credential cases count per-minute requests: an account of their own, so the free plan's 20 stay for the rest.
  let holder: { accountId: string; key: string };
  const logLines = (): string[] => (router.server.runtime.logger as unknown as { lines: string[] }).lines;
  const get = (path: string, key = attacker.key) => fetch(`${router.url}${path}`, { headers: { authorization: `Bearer ${key}`, 'user-agent': UA } });

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai', 'anthropic', 'gemini']),
        plans: (doc) => void (doc.plans.find((plan: { id: string }) => plan.id === 'free').maxOutputTokens = 1000),
      },
    });
    attacker = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } });
    holder = await router.createAccount('pro');
  });
  afterEach(() => {
    // No request in this catalogue is a router failure: nothing is logged as one, and no stack is printed.
    expect(logLines().filter((line) => /unexpected error|unhandled|\n\s+at /.test(line))).toEqual([]);
    fakes.reset();
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it.each(['/v1/models/%ZZ', '/v1/models/%E0%A4%A', '/v1/models/router%2F%'])('GET %s is a 400 naming the model, not a 500', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: 'model' });
  });

  it('classifies an upload the client aborted half-way quietly: at most one debug or info line, no stack', async () => {
    const requestId = `aborted-upload-${Date.now()}`;
    const logged = (router.server.runtime.logger as unknown as { entries: unknown[] }).entries.length;
    const head = [
      'POST /v1/chat/completions HTTP/1.1',
      'Host: 127.0.0.1',
      `User-Agent: ${UA}`,
      `Authorization: Bearer ${attacker.key}`,
      'Content-Type: application/json',
      'Content-Length: 100000',
      `X-Request-Id: ${requestId}`,
    ].join('\r\n');
    const socket = connect(Number(new URL(router.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`${head}\r\n\r\n{"model":"router/frontier","messages":[{"role":"user","content":"${'x'.repeat(50_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const all = (router.server.runtime.logger as unknown as { entries: Array<{ level: string; line: string }> }).entries;
    // Start-up notes (such as the account app's plain-http cookie warning) came before this request.
    const entries = all.slice(logged);
    const about = entries.filter((entry) => entry.line.includes(requestId));
    expect(about.length).toBeLessThanOrEqual(1);
    for (const entry of about) expect(['debug', 'info']).toContain(entry.level);
    expect(entries.filter((entry) => entry.level === 'error' || entry.level === 'warn')).toEqual([]);
  });

  it('honours Connection: close on a stream: the router says close and closes the socket after [DONE]', async () => {
    const body = JSON.stringify({ model: 'router/frontier', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const head = [
      'POST /v1/chat/completions HTTP/1.1',
      'Host: 127.0.0.1',
      `User-Agent: ${UA}`,
      `Authorization: Bearer ${attacker.key}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ].join('\r\n');
    const { text, closedByServer } = await rawExchange(router.url, `${head}\r\n\r\n${body}`, 3000);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).not.toMatch(/\r\nconnection: keep-alive\r\n/i);
    expect(text).toContain('data: [DONE]');
    expect(closedByServer).toBe(true);
  });

  it('a malformed chunk in a body the router is reading gets the contract JSON error, and nothing reaches a provider', async () => {
    const head = [
      'POST /v1/chat/completions HTTP/1.1',
      'Host: 127.0.0.1',
      `User-Agent: ${UA}`,
      `Authorization: Bearer ${attacker.key}`,
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
    ].join('\r\n');
    const { text, closedByServer } = await rawExchange(router.url, `${head}\r\n\r\n5\r\n{"mod\r\nzz\r\n`);
    const [status = '', body = ''] = text.split('\r\n\r\n');
    expect(status).toMatch(/^HTTP\/1\.1 400 /);
    expect(status).toMatch(/\r\nx-request-id: req_[0-9a-f]{32}\r\n/i);
    expect(JSON.parse(body).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
    expect(JSON.parse(body).error.message).toContain('framed wrongly');
    expect(closedByServer).toBe(true);
    expect(fakes.openai.requests).toHaveLength(0);
  });

  const modelsWith = async (credentialHeaders: string[]) => {
    const head = ['GET /v1/models HTTP/1.1', 'Host: 127.0.0.1', `User-Agent: ${UA}`, ...credentialHeaders, 'Connection: close'].join('\r\n');
    const { text } = await rawExchange(router.url, `${head}\r\n\r\n`);
    const [status = '', body = ''] = text.split('\r\n\r\n');
    return { status: Number(status.split(' ')[1]), head: status, body: body ? JSON.parse(body) : undefined };
  };
  const OTHER_KEY = 'sk_router_00000000000000000000000000000000000000';

  it.each([
    ['a valid key, then garbage', () => [`Authorization: Bearer ${holder.key}`, 'Authorization: Bearer garbage'], 'authorization'],
    ['garbage, then a valid key', () => ['Authorization: Bearer garbage', `Authorization: Bearer ${holder.key}`], 'authorization'],
    ['the same valid key twice', () => [`Authorization: Bearer ${holder.key}`, `authorization: Bearer ${holder.key}`], 'authorization'],
    ['Authorization and x-api-key naming different keys', () => [`Authorization: Bearer ${holder.key}`, `x-api-key: ${OTHER_KEY}`], 'x-api-key'],
    ['x-api-key naming a key other than Authorization', () => [`X-Api-Key: ${holder.key}`, 'Authorization: Bearer garbage'], 'x-api-key'],
    ['two x-api-key headers', () => [`x-api-key: ${holder.key}`, `x-api-key: ${OTHER_KEY}`], 'x-api-key'],
  ])('%s: 400 naming the header, never counted, no key echoed', async (_name, headers, param) => {
    const before = (await get('/v1/models', holder.key)).headers.get('x-ratelimit-remaining');
    const answer = await modelsWith(headers());
    expect(answer.status).toBe(400);
    expect(answer.head).toMatch(/\r\nx-request-id: req_[0-9a-f]{32}\r\n/i);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
    expect(answer.body.error.message).toContain(param === 'authorization' ? 'Authorization' : 'x-api-key');
    expect(answer.head + JSON.stringify(answer.body)).not.toContain(holder.key.slice(10));
    // Refused before authentication: the per-minute window did not move.
    expect(Number((await get('/v1/models', holder.key)).headers.get('x-ratelimit-remaining'))).toBe(Number(before) - 1);
  });

  it('accepts the key in x-api-key alone, or in both headers when they agree', async () => {
    expect((await modelsWith([`x-api-key: ${holder.key}`])).status).toBe(200);
    expect((await modelsWith([`Authorization: Bearer ${holder.key}`, `x-api-key: ${holder.key}`])).status).toBe(200);
    const malformed = await modelsWith(['x-api-key: garbage']);
    expect(malformed.status).toBe(401);
    expect(malformed.body.error.code).toBe('malformed_api_key');
    expect((await modelsWith([])).body.error.code).toBe('missing_api_key');
  });

  const postRaw = (path: string, text: string) =>
    fetch(`${router.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${attacker.key}`, 'content-type': 'application/json', 'user-agent': UA },
      body: text,
    });
  const HI = '"messages":[{"role":"user","content":"hi"}]';

  it.each([
    ['/chat/completions', `{"model":"router/frontier",${HI},"max_tokens":1e309}`, 'max_tokens'],
    ['/chat/completions', `{"model":"router/frontier",${HI},"temperature":-1e400}`, 'temperature'],
    ['/chat/completions', `{"model":"router/frontier",${HI},"metadata":{"note":1e999}}`, 'metadata.note'],
    ['/chat/completions', `{"model":"router/frontier","messages":[{"role":"user","content":"hi","x":[1,2,1e500]}]}`, 'messages[0].x[2]'],
    ['/chat/completions', `{"model":"router/frontier",${HI},"max_completion_tokens":10000000}`, 'max_completion_tokens'],
    ['/chat/completions', `{"model":"router/frontier",${HI},"seed":1e300}`, 'seed'],
    ['/responses', '{"model":"router/frontier","input":"hi","max_output_tokens":1e309}', 'max_output_tokens'],
  ])('POST %s with %s is a 400 naming %s, and nothing reaches a provider', async (path, text, param) => {
    const response = await postRaw(path, text);
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('names the allowed values when a field must be one of them', async () => {
    const response = await postRaw('/chat/completions', '{"model":"router/frontier","messages":[{"role":"robot","content":"hi"}]}');
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.param).toBe('messages[0].role');
    expect(error.message).toContain('(one of: "system", "developer", "user", "assistant", "tool", "function")');
  });

  it("holds a plan's maxOutputTokens: above it is a 400 naming the field, and a request without a cap gets the plan's", async () => {
    const usedBefore = (await get('/v1/models')).headers.get('x-quota-used');
    for (const [path, field] of [['/chat/completions', 'max_tokens'], ['/chat/completions', 'max_completion_tokens'], ['/responses', 'max_output_tokens']] as const) {
      const body = path === '/responses' ? `{"model":"router/frontier","input":"hi","${field}":1001}` : `{"model":"router/frontier",${HI},"${field}":1001}`;
      const refused = await postRaw(path, body);
      expect(refused.status).toBe(400);
      expect((await json(refused)).error).toMatchObject({ code: 'invalid_request', param: field });
      expect(refused.headers.get('x-quota-used')).toBe(usedBefore);
    }
    expect(fakes.openai.requests).toHaveLength(0);

    expect((await postRaw('/chat/completions', `{"model":"router/frontier",${HI},"max_tokens":1000}`)).status).toBe(200);
    expect((await postRaw('/chat/completions', `{"model":"router/frontier",${HI}}`)).status).toBe(200);
    expect((await postRaw('/responses', '{"model":"router/frontier","input":"hi"}')).status).toBe(200);
    const sent = fakes.openai.requests.map((request) => request.body as Record<string, unknown>);
    expect(sent.map((body) => body.max_completion_tokens ?? body.max_output_tokens)).toEqual([1000, 1000, 1000]);
  });

  it.each([
    ['-', 'no product'],
    ['node', "Node's bare fetch"],
    ['node/20.19.0', 'a runtime default'],
    ['Python-urllib/3.12', 'a bare library default'],
    ['Python/3.12 aiohttp/3.9.5', "aiohttp's default (a runtime, then the library)"],
    ['python-requests/2.32.3', 'a bare library default'],
    ['Go-http-client/1.1', 'a bare library default'],
    ['undici', 'a bare library default'],
    ['axios/1.7.2', 'a bare library default'],
    ['curl', 'a product without a version'],
    ['Mozilla', 'a product without a version'],
  ])('the edge rejects User-Agent %j (%s) with 1010', async (userAgent) => {
    const response = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${attacker.key}`, 'user-agent': userAgent } });
    expect(response.status).toBe(403);
    expect((await json(response)).error).toMatchObject({ type: 'edge_rejected', code: '1010' });
  });

  it.each([
    ['OpenAI/JS 6.9.1', 'the official Node SDK (LangChain.js goes through it)'],
    ['OpenAI/Python 1.54.4', 'the official Python SDK (LangChain goes through it)'],
    ['curl/8.5.0', 'curl'],
    ['codex_cli_rs/0.46.0 (Mac OS 15.0.1; arm64) iTerm.app/3.5.10', 'Codex CLI'],
    ['ai-sdk/openai/2.0.30 ai-sdk/provider-utils/3.0.9 runtime/node.js/22', 'the Vercel AI SDK'],
    ['my-app/1.2 (contact@example.com)', 'an application naming itself'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36', 'a browser'],
  ])('the edge lets User-Agent %j (%s) through', async (userAgent) => {
    const response = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${attacker.key}`, 'user-agent': userAgent } });
    expect(response.status).toBe(200);
  });

  it.each(['/model-catalog/%ZZ', '/v1/%ZZ', '/%E0%A4%A'])('GET %s is a 404 in the contract shape', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(404);
    expect((await json(response)).error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
  });
});

describe('requests the HTTP parser refuses', () => {
  let router: TestRouter;
  beforeAll(async () => {
    router = await startTestRouter();
  });
  afterAll(async () => {
    await router.close();
  });

  const HOST = 'Host: 127.0.0.1\r\nUser-Agent: router-tests/1.0\r\n';
  const cases: Array<[string, string, number, string]> = [
    ['a NUL byte in a header', `GET /healthz HTTP/1.1\r\n${HOST}X-Note: a\u0000b\r\n\r\n`, 400, 'invalid_request'],
    ['an obs-folded header', `GET /healthz HTTP/1.1\r\n${HOST}X-Note: a\r\n folded\r\n\r\n`, 400, 'invalid_request'],
    ['both Content-Length and Transfer-Encoding', `POST /v1/chat/completions HTTP/1.1\r\n${HOST}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400, 'invalid_request'],
    ['two Content-Length headers', `POST /v1/chat/completions HTTP/1.1\r\n${HOST}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400, 'invalid_request'],
    ['a 64 KB header', `GET /healthz HTTP/1.1\r\n${HOST}X-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`, 431, 'request_header_too_large'],
    ['a request line that is not HTTP', 'HELLO WORLD\r\n\r\n', 400, 'invalid_request'],
    ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1\r\nUser-Agent: router-tests/1.0\r\n\r\n', 400, 'invalid_request'],
    ['two Host headers', `GET /healthz HTTP/1.1\r\n${HOST}Host: evil.example\r\n\r\n`, 400, 'invalid_request'],
    ['Expect: bogus', `POST /v1/chat/completions HTTP/1.1\r\n${HOST}Expect: bogus\r\nContent-Length: 2\r\n\r\n{}`, 417, 'expectation_failed'],
    ['Expect: bogus without Host', 'GET /healthz HTTP/1.1\r\nExpect: bogus\r\n\r\n', 400, 'invalid_request'],
    ['CONNECT host:443', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, 'method_not_allowed'],
    ['a method HTTP does not define', `FROB /healthz HTTP/1.1\r\n${HOST}\r\n`, 400, 'invalid_request'],
    ['HTTP/1.2', `GET /healthz HTTP/1.2\r\n${HOST}\r\n`, 400, 'invalid_request'],
    ['the HTTP/2 prior-knowledge preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400, 'invalid_request'],
    ['a space inside a header name', `GET /healthz HTTP/1.1\r\n${HOST}Bad Name: x\r\n\r\n`, 400, 'invalid_request'],
    ['a space inside the path', `GET /heal thz HTTP/1.1\r\n${HOST}\r\n`, 400, 'invalid_request'],
    ['a bare LF ending the request line', 'GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n', 400, 'invalid_request'],
    ['Content-Length that is not a number', `POST /v1/chat/completions HTTP/1.1\r\n${HOST}Content-Length: 1e3\r\n\r\n{}`, 400, 'invalid_request'],
    ['Transfer-Encoding that does not end in chunked', `POST /v1/chat/completions HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked, gzip\r\n\r\n`, 400, 'invalid_request'],
  ];

  it.each(cases)('%s gets the contract JSON error with a request id', async (_name, bytes, status, code) => {
    const { text, closedByServer } = await rawExchange(router.url, bytes);
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head).toMatch(/\r\nx-request-id: req_[0-9a-f]{32}\r\n/i);
    expect(head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(head).toMatch(/\r\nconnection: close/i);
    expect(JSON.parse(body).error).toMatchObject({ code, type: 'invalid_request_error' });
    expect(closedByServer).toBe(true);
    expect((await fetch(`${router.url}/healthz`)).status).toBe(200);
  });

  it('CONNECT is answered with Allow naming the methods the router serves', async () => {
    const { text } = await rawExchange(router.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(text.split('\r\n\r\n')[0]).toMatch(/\r\nallow: GET, HEAD, POST\r\n/i);
  });

  it.each([
    ['no Host', 'GET /healthz HTTP/1.1\r\nX-Request-Id: trace-no-host-1\r\n\r\n'],
    ['Expect: bogus', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: bogus\r\nX-Request-Id: trace-expect-1\r\n\r\n'],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: trace-connect-1\r\n\r\n'],
  ])('a refusal after the headers were parsed (%s) echoes a valid incoming X-Request-Id', async (_name, bytes) => {
    const { text } = await rawExchange(router.url, bytes);
    const id = /\r\nx-request-id: (\S+)\r\n/i.exec(text)?.[1];
    expect(id).toMatch(/^trace-[a-z-]+-1$/);
  });

  it('HTTP/1.0 may omit Host, and Expect: 100-continue still reaches the app', async () => {
    expect((await rawExchange(router.url, 'GET /healthz HTTP/1.0\r\n\r\n')).text).toMatch(/^HTTP\/1\.1 200 /);
    const { text } = await rawExchange(router.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    expect(text).toMatch(/"status":"ok"/);
  });
});
