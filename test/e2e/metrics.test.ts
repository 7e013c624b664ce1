/**
 * GET /metrics over HTTP: Prometheus text with requests, attempts, failovers, circuit state, latency
 * histograms, limit rejections, the ledger's queue and flushes, and store latency; bearer-protected when
 * metrics.token is set; never an account id, key or prompt in any label.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  planLimits,
  pointProvidersAt,
  postChat,
  startFakes,
  startTestRouter,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const PROMPT = 'a prompt that must never reach a label';

/** `name{labels} value` lines of one metric, labels parsed. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => {
      const labelText = /\{(.*)\}/.exec(line)?.[1] ?? '';
      const labels = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1]!, match[2]!]));
      return { labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) };
    });
}

describe('GET /metrics', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let account: { accountId: string; key: string; keyId: string };
  let text: string;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      env: { ROUTER_METRICS_TOKEN: TOKEN },
      patch: {
        server: (doc) => void (doc.metrics = { token: '${ROUTER_METRICS_TOKEN}' }),
        plans: planLimits({ free: { requestsPerMinute: 3 } }),
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai', 'anthropic']),
      },
    });
    account = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } });
    const chat = (extra = {}) => postChat(router.baseURL, account.key, { messages: [{ role: 'user', content: PROMPT }], ...extra });
    expect((await chat()).status).toBe(200);
    fakes.openai.failNext({ kind: 'status', status: 503 });
    expect((await chat()).status).toBe(200);
    const stream = await chat({ stream: true });
    expect(stream.status).toBe(200);
    await stream.text();
    expect((await chat()).status).toBe(429);
    await fetch(`${router.baseURL}/models`, { headers: { 'user-agent': 'router-tests/1.0', authorization: 'Bearer sk_router_not-a-real-key' } });
    await router.server.runtime.usage.ledger!.flush();
    const response = await fetch(`${router.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    text = await response.text();
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('asks for the bearer token when one is configured', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN]) {
      const response = await fetch(`${router.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="router"');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('metrics_token_required');
    }
  });

  it('counts requests by endpoint, route, status class and code', () => {
    const requests = samples(text, 'router_requests_total');
    const count = (labels: Record<string, string>) => requests.find((sample) => Object.entries(labels).every(([k, v]) => sample.labels[k] === v))?.value;
    expect(count({ endpoint: '/v1/chat/completions', route: 'router/frontier', status_class: '2xx', code: 'none' })).toBe(3);
    expect(count({ endpoint: '/v1/chat/completions', route: 'router/frontier', status_class: '4xx', code: 'rate_limit_exceeded' })).toBe(1);
    expect(count({ endpoint: '/v1/models', route: 'none', status_class: '4xx', code: 'malformed_api_key' })).toBe(1);
    expect(samples(text, 'router_limit_rejections_total')).toEqual([{ labels: { limit: 'rate_limit' }, value: 1 }]);
  });

  it('counts upstream attempts by outcome and failovers, and shows each circuit', () => {
    const attempts = samples(text, 'router_upstream_attempts_total');
    expect(attempts).toContainEqual({ labels: { provider: 'openai', outcome: 'http_503' }, value: 1 });
    expect(attempts).toContainEqual({ labels: { provider: 'anthropic', outcome: 'ok' }, value: 1 });
    expect(attempts).toContainEqual({ labels: { provider: 'openai', outcome: 'ok' }, value: 2 });
    expect(samples(text, 'router_failovers_total')).toEqual([{ labels: { route: 'router/frontier' }, value: 1 }]);
    expect(samples(text, 'router_circuit_state').map((sample) => sample.labels.provider).sort()).toEqual(['anthropic', 'gemini', 'openai']);
  });

  it('has latency histograms, the ledger queue and flushes, store latency and process metrics', () => {
    expect(samples(text, 'router_request_duration_seconds_count').reduce((sum, sample) => sum + sample.value, 0)).toBe(5);
    expect(samples(text, 'router_time_to_first_byte_seconds_count').reduce((sum, sample) => sum + sample.value, 0)).toBe(3);
    expect(samples(text, 'router_ledger_queue_depth')).toEqual([{ labels: {}, value: 0 }]);
    expect(samples(text, 'router_ledger_behind')).toEqual([{ labels: {}, value: 0 }]);
    // Three admitted model requests; the rate-limited one never passed admission.
    expect(samples(text, 'router_ledger_records_written_total')).toEqual([{ labels: {}, value: 3 }]);
    expect(samples(text, 'router_ledger_flush_duration_seconds_count').find((sample) => sample.labels.result === 'ok')?.value).toBeGreaterThan(0);
    const storeOps = samples(text, 'router_store_operation_duration_seconds_count');
    // SQLite with the memory limiter admits through the embedded quota gate: the store is asked for blocks
    // (holdQuota), not once per request (admitQuota).
    expect(storeOps.find((sample) => sample.labels.store === 'main' && sample.labels.operation === 'holdQuota')?.value).toBeGreaterThan(0);
    expect(storeOps.find((sample) => sample.labels.store === 'main' && sample.labels.operation === 'admitQuota')).toBeUndefined();
    expect(storeOps.some((sample) => sample.labels.store === 'ledger' && sample.labels.operation === 'writeBatch')).toBe(true);
    expect(text).toContain('router_process_cpu_user_seconds_total');
  });

  it('never puts an account id, a key, a key id or a prompt in a label', () => {
    for (const secret of [account.accountId, account.keyId, account.key, 'sk_router_', PROMPT, 'acct_']) expect(text).not.toContain(secret);
    // Any key id, by its shape (`key_` + 24 hex); codes such as key_quota_exceeded are not ids.
    expect(text).not.toMatch(/key_[0-9a-f]{24}/);
  });

  it("counts rejections by a key's own limits apart from the account's", async () => {
    const capped = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } });
    await router.server.runtime.store.setKeyLimits({ keyId: capped.keyId, monthlyRequests: 1, requestsPerMinute: null }, 'test');
    expect((await postChat(router.baseURL, capped.key)).status).toBe(200);
    const refused = await postChat(router.baseURL, capped.key);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('key_quota_exceeded');
    const after = await (await fetch(`${router.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(samples(after, 'router_limit_rejections_total')).toEqual([
      { labels: { limit: 'rate_limit' }, value: 1 },
      { labels: { limit: 'key_quota' }, value: 1 },
    ]);
    expect(after).not.toContain(capped.keyId);
  });

  it('is absent when metrics.enabled is false', async () => {
    const quiet = await startTestRouter({ patch: { server: (doc) => void (doc.metrics = { enabled: false }) } });
    try {
      expect((await fetch(`${quiet.url}/metrics`)).status).toBe(404);
    } finally {
      await quiet.close();
    }
  });
});
