/**
 * The canary test. Unique canaries are planted in a generated router key, BYOK keys of all three
 * providers, a prompt, a cookie and query strings; traffic, failures, failover, streams and error
 * passthrough (with upstreams quoting the key they got) are driven through a spawned router logging at
 * debug level. No canary may appear in any response (other than the model's own echo of the prompt),
 * any log line, any database file (WAL included) or any audit row.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../e2e/router-harness.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { jsonLogLines, startSpawnedRouter, type SpawnedRouter } from './process-harness.js';

const tag = () => randomBytes(6).toString('hex');
const CANARY = {
  openaiKey: `sk-proj-canaryOpenAI${tag()}`,
  anthropicKey: `sk-ant-api03-canaryAnthropic${tag()}`,
  geminiKey: `AIzaSyCanaryGemini${tag()}${tag()}`,
  prompt: `PROMPT-CANARY-${tag()}`,
  cookie: `COOKIE-CANARY-${tag()}`,
  query: `QUERY-CANARY-${tag()}`,
  malformedKey: `sk_router_MALFORMEDCANARY${tag()}`,
};

interface Seen {
  what: string;
  text: string;
  /** The model was asked to repeat the prompt: its answer may contain the prompt canary, nothing else. */
  echo?: boolean;
}

describe('canaries never leak (a spawned router at debug level)', () => {
  let router: SpawnedRouter;
  // Tracing is on: every byte the router exports as spans is checked too.
  let collector: OtlpReceiver;
  let routerKey: string;
  let accountId: string;
  const seen: Seen[] = [];
  let canaries: Record<string, string>;

  /** Send a request with the cookie and query canaries and keep everything the client got back. */
  async function send(what: string, path: string, init: { method?: string; body?: string; key?: string; echo?: boolean } = {}): Promise<Response> {
    const separator = path.includes('?') ? '&' : '?';
    const response = await fetch(`${router.url}${path}${separator}token=${CANARY.query}&q=${encodeURIComponent(CANARY.query)}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        'user-agent': 'canary-tests/1.0',
        'content-type': 'application/json',
        cookie: `session=${CANARY.cookie}; theme=dark`,
        authorization: `Bearer ${init.key ?? routerKey}`,
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await response.clone().text();
    seen.push({ what, text: `${JSON.stringify([...response.headers])}\n${text}`, ...(init.echo ? { echo: true } : {}) });
    return response;
  }
  const chat = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: `Please answer: ${CANARY.prompt}` }], metadata: { note: CANARY.prompt }, ...extra });

  beforeAll(async () => {
    collector = await startOtlpReceiver();
    router = await startSpawnedRouter({ env: { ROUTER_LOG_LEVEL: 'debug', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100' } });
    ({ accountId, key: routerKey } = await router.account('pro', { openai: CANARY.openaiKey, anthropic: CANARY.anthropicKey, gemini: CANARY.geminiKey }));
    canaries = { ...CANARY, routerKey };
  });
  afterAll(async () => {
    await router?.close();
    await collector?.close();
  });

  it('drives traffic, failover, streams, failures and error passthrough through every provider', async () => {
    const { openai, anthropic, gemini } = router.fakes;
    expect((await send('models', '/v1/models')).status).toBe(200);
    expect((await send('chat via openai', '/v1/chat/completions', { body: chat() })).status).toBe(200);
    await readSse(await send('stream via openai', '/v1/chat/completions', { body: chat({ stream: true, stream_options: { include_usage: true } }) }));
    expect((await send('responses via openai (native)', '/v1/responses', { body: JSON.stringify({ model: 'router/frontier', input: CANARY.prompt }) })).status).toBe(200);

    openai.failNext({ kind: 'status', status: 503 });
    expect((await send('failover to anthropic', '/v1/chat/completions', { body: chat() })).headers.get('x-router-upstream')).toBe('anthropic');
    openai.failNext({ kind: 'status', status: 401, echoCredential: true });
    anthropic.failNext({ kind: 'status', status: 500 });
    expect((await send('failover to gemini', '/v1/chat/completions', { body: chat() })).headers.get('x-router-upstream')).toBe('gemini');
    // A 429 asking for no wait: a credential rests as long as its provider asks (routing/credential-health.ts), and the 400 below must reach openai.
    openai.failNext({ kind: 'status', status: 429, retryAfterSeconds: 0 });
    anthropic.failNext({ kind: 'status', status: 529 });
    await readSse(await send('stream failover to gemini', '/v1/responses', { body: JSON.stringify({ model: 'router/frontier', input: CANARY.prompt, stream: true }) }));

    // Error passthrough, each upstream quoting the key it got.
    openai.failNext({ kind: 'status', status: 400, echoCredential: true });
    expect((await send('openai 400 quoting its key', '/v1/chat/completions', { body: chat() })).status).toBe(400);
    for (const [fake, other] of [[anthropic, openai], [gemini, anthropic]] as const) {
      other.failNext({ kind: 'status', status: 503 });
      if (fake === gemini) openai.failNext({ kind: 'status', status: 503 });
      fake.failNext({ kind: 'status', status: 400, echoCredential: true });
      expect((await send('a 400 quoting its key', '/v1/chat/completions', { body: chat() })).status).toBe(400);
    }
    openai.failNext({ kind: 'mid-stream-error', afterEvents: 3, echoCredential: true });
    await readSse(await send('stream error quoting the key', '/v1/chat/completions', { body: chat({ stream: true }) }));
    openai.failNext({ kind: 'mid-stream-error', afterEvents: 6, echoCredential: true });
    await readSse(await send('native Responses failure quoting the key', '/v1/responses', { body: JSON.stringify({ model: 'router/frontier', input: CANARY.prompt, stream: true }) }));
    for (const fake of [openai, anthropic, gemini]) fake.failNext({ kind: 'status', status: 401, echoCredential: true });
    expect((await send('every upstream rejects its key', '/v1/chat/completions', { body: chat() })).status).toBe(502);
    openai.failNext({ kind: 'truncated-stream', afterEvents: 3 });
    await readSse(await send('a truncated stream', '/v1/chat/completions', { body: chat({ stream: true }) }));

    // The client's own mistakes, each carrying canaries.
    expect((await send('malformed key', '/v1/models', { key: CANARY.malformedKey })).status).toBe(401);
    expect((await send('not JSON', '/v1/chat/completions', { body: `{"model":"router/frontier","messages":[${CANARY.prompt}` })).status).toBe(400);
    expect((await send('invalid field', '/v1/chat/completions', { body: chat({ temperature: CANARY.prompt }) })).status).toBe(400);
    // (A model name the client asked for is named back to it, as OpenAI does: it is not a canary.)
    expect((await send('unknown route', '/v1/chat/completions', { body: chat({ model: 'router/unknown' }) })).status).toBe(404);
    expect((await send('unknown path', `/v1/${CANARY.prompt}`)).status).toBe(404);

    // A client that gives up while the upstream is still thinking (a 499, logged at debug level).
    openai.setReply({ latencyMs: 1000 });
    const controller = new AbortController();
    const abandoned = fetch(`${router.baseURL}/chat/completions?token=${CANARY.query}`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'user-agent': 'canary-tests/1.0', 'content-type': 'application/json', cookie: `session=${CANARY.cookie}`, authorization: `Bearer ${routerKey}` },
      body: chat(),
    });
    setTimeout(() => controller.abort(), 200);
    await expect(abandoned).rejects.toThrow();

    // The model's own echo is the one place a prompt may come back.
    openai.setReply({ text: `You said ${CANARY.prompt}` });
    const echoed = await send('the model echoes the prompt', '/v1/chat/completions', { body: chat(), echo: true });
    expect(await echoed.text()).toContain(CANARY.prompt);
    openai.reset();
  });

  it('no canary in any response except the model echo of the prompt', () => {
    expect(seen.length).toBeGreaterThan(15);
    for (const { what, text, echo } of seen) {
      for (const [name, value] of Object.entries(canaries)) {
        if (echo && name === 'prompt') continue;
        // The client's own cookie and query never come back either; the router key only in the client's own request.
        expect(text.includes(value) || text.includes(encodeURIComponent(value)), `${name} in the response to "${what}"`).toBe(false);
      }
    }
  });

  it('no canary in any log line (the process logged at debug level, as JSON lines)', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const output = router.output();
    expect(jsonLogLines(output).length).toBeGreaterThan(10);
    expect(jsonLogLines(output).some((line) => line.level === 'debug')).toBe(true);
    for (const [name, value] of Object.entries(canaries)) {
      const leaked = output.split('\n').filter((line) => line.includes(value) || line.includes(encodeURIComponent(value)));
      expect(leaked, `${name} in the logs`).toEqual([]);
    }
  });

  it('no canary in any exported span (every byte the collector received)', async () => {
    // Every request above ended; the batch is sent within the schedule delay.
    await collector.waitFor((spans) => spans.filter((span) => span.kind === 2).length >= 15);
    expect(collector.spans().some((span) => span.kind === 3 && span.attributes['router.attempt.outcome'] === 'failed')).toBe(true);
    const exported = Buffer.concat(collector.bodies);
    for (const [name, value] of Object.entries(canaries)) {
      expect(exported.includes(Buffer.from(value)) || exported.includes(Buffer.from(encodeURIComponent(value))), `${name} in the exported spans`).toBe(false);
    }
  });

  it('no canary in any database file (WAL included) or audit row', async () => {
    const db = new Database(join(router.dataDir, 'router.db'), { readonly: true });
    const audit = JSON.stringify(db.prepare('SELECT * FROM audit_events').all());
    const auditedKeys = db.prepare("SELECT COUNT(*) AS n FROM audit_events WHERE action LIKE 'provider_key%' AND account_id = ?").get(accountId) as { n: number };
    db.close();
    expect(auditedKeys.n).toBe(3);
    const check = (label: string, bytes: Buffer) => {
      for (const [name, value] of Object.entries(canaries)) {
        expect(bytes.includes(Buffer.from(value)), `${name} in ${label}`).toBe(false);
      }
    };
    check('the audit rows', Buffer.from(audit));
    const scan = () => {
      const files = readdirSync(router.dataDir).filter((file) => file.startsWith('router.db'));
      for (const file of files) check(file, readFileSync(join(router.dataDir, file)));
      return files;
    };
    expect(scan()).toContain('router.db');
    // Once more after a clean shutdown, when the WAL has been checkpointed into the database file.
    await router.stop();
    expect(await router.exited).toBe(0);
    scan();
  });
});
