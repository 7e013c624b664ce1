/**
 * OpenTelemetry traces through real HTTP: the router exports to an in-process OTLP/HTTP receiver, which
 * decodes the JSON export; the tests check each request's span tree, the client's trace continued to
 * the upstream through `traceparent`, the sampled flag honoured, and nothing exported when tracing is off.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, spanTree, type ExportedSpan, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startFusionRig, type FusionRig } from './fusion-harness.js';
import { PROVIDER_KEYS, frontierOrder, planLimits, pointProvidersAt, postChat, readSse, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const NO_BREAKER = (doc: any) => void (doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 });
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A client's own trace: the router's server span must be its child. */
function clientTrace(sampled = true) {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`, tracestate: 'client=opaque1' };
}

function post(router: TestRouter, key: string, path: string, body: object, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${router.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'tracing-tests/1.0', ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/**
 * The tree holds these lines in this order (other stages may sit between: a stage added to the pipeline
 * gets its span without this test knowing it).
 */
function expectInOrder(tree: string[], expected: string[]): void {
  let at = 0;
  for (const line of tree) if (line === expected[at]) at++;
  expect(at, `${JSON.stringify(expected[at])} missing or out of order in\n${tree.join('\n')}`).toBe(expected.length);
}

/** Admission's spans: authentication, the monthly quota, the rate limits (in flight, per minute, the key's caps) as one. */
const ADMISSION = ['router.authenticate', 'router.quota', 'router.rate_limit'];

describe('traces of /v1 requests (tracing on through OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let fakes: Fakes;
  let receiver: OtlpReceiver;
  let router: TestRouter;
  let key: string;
  let accountId: string;
  let keyId: string;
  let freeKey: string;

  const serverSpanOf = (spans: ExportedSpan[], traceId: string) => spans.find((span) => span.traceId === traceId && span.kind === 2);
  const ended = (traceId: string) => (spans: ExportedSpan[]) => serverSpanOf(spans, traceId) !== undefined;

  beforeAll(async () => {
    fakes = await startFakes();
    receiver = await startOtlpReceiver();
    router = await startTestRouter({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'router-under-test' },
      patch: {
        providers: pointProvidersAt(fakes.urls, NO_BREAKER),
        routes: frontierOrder(['openai', 'anthropic', 'gemini']),
        plans: planLimits({ free: { monthlyRequests: 1 } }),
      },
    });
    ({ key, accountId, keyId } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } }));
    ({ key: freeKey } = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } }));
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await receiver?.close();
  });

  it('a chat stream with one failover: server span under the client span, admission stages, a failed and a served attempt', async () => {
    const client = clientTrace();
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const response = await post(router, key, '/chat/completions', { model: 'router/frontier', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Say hello' }] }, {
      traceparent: client.traceparent,
      tracestate: client.tracestate,
    });
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
    await readSse(response);
    const spans = await receiver.waitFor(ended(client.traceId));

    const tree = spanTree(spans, client.traceId);
    expectInOrder(tree, ['POST /v1/chat/completions', ...ADMISSION.map((name) => `  ${name}`), '  router.spend_gate', '  chat gpt-4.1', '  chat claude-sonnet-4-5']);
    expect(tree.filter((line) => line.startsWith('  chat '))).toHaveLength(2);
    expect(tree.filter((line) => !line.startsWith('  '))).toHaveLength(1);
    // One span per admission step, no more: the three limit stages share theirs (the cost of a span is in bench/README.md).
    expect(tree).toHaveLength(1 + ADMISSION.length + 1 + 2);
    const server = serverSpanOf(spans, client.traceId)!;
    expect(server.parentSpanId).toBe(client.spanId);
    expect(server.resource['service.name']).toBe('router-under-test');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'router.account.id': accountId,
      'router.key.id': keyId,
      'router.route_profile': 'router/frontier',
      'router.retry_count': 1,
      'router.limit.decision': 'admitted',
      'router.served.provider': 'anthropic',
    });
    const [failed, served] = ['chat gpt-4.1', 'chat claude-sonnet-4-5'].map((name) => spans.find((span) => span.traceId === client.traceId && span.name === name)!);
    expect(failed!.kind).toBe(3);
    expect(failed!.statusCode).toBe(2);
    expect(failed!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4.1',
      'http.response.status_code': 503,
      'router.attempt.outcome': 'failed',
      'router.attempt.number': 1,
      'server.address': '127.0.0.1',
    });
    expect(failed!.attributes['router.failover.reason']).toEqual(expect.any(String));
    expect(served!.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'router.attempt.outcome': 'served',
      'router.attempt.number': 2,
      'http.response.status_code': 200,
    });
    expect(served!.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
    expect(served!.attributes['gen_ai.usage.output_tokens']).toEqual(expect.any(Number));
    expect(served!.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expect(served!.attributes['router.attempt.time_to_first_byte_ms']).toEqual(expect.any(Number));
    // The served attempt's span lasts as long as its stream, inside the request's.
    expect(served!.endNs <= server.endNs).toBe(true);

    // The client's trace continues to each upstream, under that attempt's own span, with its tracestate.
    const upstreamHeaders = (fake: { requests: Array<{ headers: Record<string, unknown> }> }) => fake.requests.at(-1)!.headers;
    expect(upstreamHeaders(fakes.openai).traceparent).toBe(`00-${client.traceId}-${failed!.spanId}-01`);
    expect(upstreamHeaders(fakes.anthropic).traceparent).toBe(`00-${client.traceId}-${served!.spanId}-01`);
    expect(upstreamHeaders(fakes.anthropic).tracestate).toBe(client.tracestate);
  });

  it('a Responses request: one served attempt with its usage, a new trace when the client sent none', async () => {
    const response = await post(router, key, '/responses', { model: 'router/frontier', input: 'Say hello' });
    expect(response.status).toBe(200);
    const upstream = fakes.openai.requests.at(-1)!.headers.traceparent as string;
    const traceId = upstream.split('-')[1]!;
    const spans = await receiver.waitFor(ended(traceId));
    const tree = spanTree(spans, traceId);
    expectInOrder(tree, ['POST /v1/responses', ...ADMISSION.map((name) => `  ${name}`), '  router.spend_gate', '  chat gpt-4.1']);
    expect(tree.filter((line) => line.startsWith('  chat '))).toHaveLength(1);
    expect(serverSpanOf(spans, traceId)!.parentSpanId).toBeUndefined();
    const attempt = spans.find((span) => span.traceId === traceId && span.kind === 3)!;
    expect(attempt.attributes).toMatchObject({ 'router.attempt.outcome': 'served', 'gen_ai.response.model': 'gpt-4.1' });
    expect(attempt.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
  });

  it('the Messages API through the shared pipeline: JSON and a stream with a failover, each attempt with GenAI attributes and its stop reason', async () => {
    const ask = (stream: boolean, traceparent: string) =>
      post(router, key, '/messages', { model: 'router/frontier', max_tokens: 64, stream, messages: [{ role: 'user', content: 'Say hello' }] }, { traceparent, 'anthropic-version': '2023-06-01' });
    const json = clientTrace();
    const answer = await ask(false, json.traceparent);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { stop_reason: string }).stop_reason).toBe('end_turn');
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const streamed = clientTrace();
    const stream = await ask(true, streamed.traceparent);
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain('"stop_reason":"end_turn"');

    for (const [client, attempts] of [
      [json, ['chat gpt-4.1']],
      [streamed, ['chat gpt-4.1', 'chat claude-sonnet-4-5']],
    ] as const) {
      const spans = await receiver.waitFor(ended(client.traceId));
      const tree = spanTree(spans, client.traceId);
      expectInOrder(tree, ['POST /v1/messages', ...ADMISSION.map((name) => `  ${name}`), '  router.spend_gate', ...attempts.map((name) => `  ${name}`)]);
      expect(tree).toHaveLength(1 + ADMISSION.length + 1 + attempts.length);
      const server = serverSpanOf(spans, client.traceId)!;
      expect(server.parentSpanId).toBe(client.spanId);
      expect(server.attributes).toMatchObject({ 'http.route': '/v1/messages', 'http.response.status_code': 200, 'router.limit.decision': 'admitted', 'router.retry_count': attempts.length - 1 });
      const served = spans.find((span) => span.traceId === client.traceId && span.name === attempts.at(-1))!;
      expect(served.kind).toBe(3);
      expect(served.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': attempts.length === 1 ? 'openai' : 'anthropic',
        'gen_ai.request.model': attempts.length === 1 ? 'gpt-4.1' : 'claude-sonnet-4-5',
        'gen_ai.response.finish_reasons': ['end_turn'],
        'router.attempt.outcome': 'served',
      });
      expect(served.attributes['gen_ai.response.model']).toEqual(expect.any(String));
      expect(served.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
      expect(served.attributes['gen_ai.usage.output_tokens']).toEqual(expect.any(Number));
      if (attempts.length === 2) {
        const failed = spans.find((span) => span.traceId === client.traceId && span.name === 'chat gpt-4.1')!;
        expect(failed.attributes).toMatchObject({ 'router.attempt.outcome': 'failed', 'http.response.status_code': 503 });
        expect(fakes.anthropic.requests.at(-1)!.headers.traceparent).toBe(`00-${client.traceId}-${served.spanId}-01`);
      }
    }
  });

  it('a request the monthly quota refuses: the quota stage fails, no upstream attempt, the decision on the server span', async () => {
    const body = { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] };
    expect((await post(router, freeKey, '/chat/completions', body)).status).toBe(200);
    const client = clientTrace();
    expect((await post(router, freeKey, '/chat/completions', body, { traceparent: client.traceparent })).status).toBe(429);
    const spans = await receiver.waitFor(ended(client.traceId));
    const tree = spanTree(spans, client.traceId);
    expectInOrder(tree, ['POST /v1/chat/completions', '  router.authenticate', '  router.quota']);
    // Refused at the quota: no later stage, no spend gate, no upstream attempt.
    expect(tree.at(-1)).toBe('  router.quota');
    expect(serverSpanOf(spans, client.traceId)!.attributes).toMatchObject({
      'http.response.status_code': 429,
      'router.limit.decision': 'monthly_quota_exceeded',
      'router.error.code': 'monthly_quota_exceeded',
      'router.quota.counted': false,
    });
    const quota = spans.find((span) => span.traceId === client.traceId && span.name === 'router.quota')!;
    expect(quota.statusCode).toBe(2);
    expect(quota.attributes['error.type']).toBe('monthly_quota_exceeded');
  });

  it('a client that leaves while the upstream thinks: 499 on the server span, the attempt aborted', async () => {
    fakes.openai.setReply({ latencyMs: 1000 });
    const client = clientTrace();
    const controller = new AbortController();
    const pending = postChat(router.baseURL, key, {}, controller.signal).catch((error: unknown) => error);
    // postChat sends no traceparent: find the trace through the upstream's header instead.
    await receiver.waitFor(() => fakes.openai.requests.length > 0, 3000).catch(() => undefined);
    setTimeout(() => controller.abort(), 100);
    await pending;
    const upstream = fakes.openai.requests.at(-1)!.headers.traceparent as string;
    const traceId = upstream.split('-')[1]!;
    const spans = await receiver.waitFor(ended(traceId));
    expect(client.traceId).not.toBe(traceId);
    expect(serverSpanOf(spans, traceId)!.attributes).toMatchObject({ 'http.response.status_code': 499, 'router.client_closed': true });
    const attempt = spans.find((span) => span.traceId === traceId && span.kind === 3)!;
    expect(attempt.attributes['router.attempt.outcome']).toBe('aborted');
  });

  it('a client trace that is not sampled stays unsampled: nothing exported, the flag passed on upstream', async () => {
    const client = clientTrace(false);
    const before = receiver.spans().length;
    const response = await post(router, key, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }, { traceparent: client.traceparent });
    expect(response.status).toBe(200);
    const upstream = fakes.openai.requests.at(-1)!.headers.traceparent as string;
    expect(upstream).toMatch(new RegExp(`^00-${client.traceId}-[0-9a-f]{16}-00$`));
    // A sampled request after it is exported, so the export has run since.
    const next = clientTrace();
    await post(router, key, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }, { traceparent: next.traceparent });
    await receiver.waitFor(ended(next.traceId));
    expect(receiver.spans().slice(before).filter((span) => span.traceId === client.traceId)).toEqual([]);
  });

  it('the model list gets a server span too, with no limit decision (not model traffic)', async () => {
    const client = clientTrace();
    const response = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${key}`, 'user-agent': 'tracing-tests/1.0', traceparent: client.traceparent } });
    expect(response.status).toBe(200);
    const spans = await receiver.waitFor(ended(client.traceId));
    const server = serverSpanOf(spans, client.traceId)!;
    expect(server.name).toBe('GET /v1/models');
    expect(server.attributes['router.limit.decision']).toBeUndefined();
  });
});

describe('tracing off (the default)', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic', 'gemini']) } });
    ({ key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } }));
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('has no Tracing, and a client traceparent is not passed upstream', async () => {
    expect(router.server.runtime.tracing).toBeUndefined();
    const client = clientTrace();
    expect((await post(router, key, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }, { traceparent: client.traceparent })).status).toBe(200);
    expect(fakes.openai.requests.at(-1)!.headers.traceparent).toBeUndefined();
  });
});

describe('a collector that fails', () => {
  it('never fails a request; the failure is logged (one line, no body)', async () => {
    const fakes = await startFakes();
    const receiver = await startOtlpReceiver();
    receiver.failWith(500);
    const router = await startTestRouter({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
      patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic', 'gemini']) },
    });
    try {
      const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
      for (let i = 0; i < 3; i++) {
        expect((await post(router, key, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
      }
      const logger = router.server.runtime.logger as unknown as { entries: Array<{ level: string; line: string }> };
      await receiver.waitFor(() => logger.entries.some((entry) => entry.line.includes("trace export")), 5000);
      const lines = logger.entries.filter((entry) => entry.line.includes('trace export'));
      expect(lines[0]!.level).toBe('warn');
      expect(lines[0]!.line).toContain(receiver.url);
    } finally {
      await router.close();
      await fakes.close();
      await receiver.close();
    }
  });
});

describe('a fusion request', () => {
  let rig: FusionRig;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    rig = await startFusionRig({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' } });
  });
  afterAll(async () => {
    await rig?.close();
    await receiver?.close();
  });

  it('has one span per panel member, the judge and the writer, each over its upstream attempt', async () => {
    const client = clientTrace();
    const response = await post(rig.router, rig.account.key, '/chat/completions', { model: 'router/fusion', stream: true, messages: [{ role: 'user', content: 'Capital of France?' }] }, { traceparent: client.traceparent });
    expect(response.status).toBe(200);
    await readSse(response);
    const spans = await receiver.waitFor((all) => all.some((span) => span.traceId === client.traceId && span.kind === 2));
    const mine = spans.filter((span) => span.traceId === client.traceId);
    const server = mine.find((span) => span.kind === 2)!;
    const calls = mine.filter((span) => span.name.startsWith('fusion '));
    expect(calls.map((span) => `${span.name} ${span.attributes['router.fusion.call']}`).sort()).toEqual([
      'fusion judge judge',
      'fusion panel panel:1',
      'fusion panel panel:2',
      'fusion panel panel:3',
      'fusion writer writer',
    ]);
    for (const call of calls) {
      expect(call.parentSpanId).toBe(server.spanId);
      const attempts = mine.filter((span) => span.parentSpanId === call.spanId);
      expect(attempts.map((span) => span.kind)).toEqual([3]);
      expect(attempts[0]!.attributes['router.attempt.outcome']).toBe('served');
      expect(attempts[0]!.attributes['gen_ai.usage.output_tokens']).toEqual(expect.any(Number));
    }
    const panelProviders = calls.filter((span) => span.name === 'fusion panel').map((call) => mine.find((span) => span.parentSpanId === call.spanId)!.attributes['gen_ai.provider.name']);
    expect(panelProviders.sort()).toEqual(['anthropic', 'gcp.gemini', 'openai']);
  });
});
