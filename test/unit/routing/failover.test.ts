import { describe, expect, it } from 'vitest';
import type { ProviderConfig, RouteProfileConfig } from '../../../src/config/types.js';
import { RouterError } from '../../../src/core/errors.js';
import { UpstreamStreamError } from '../../../src/upstream/upstream-failure.js';
import { AttemptFailed, CandidateUnfit, runWithFailover, type Candidate, type FailoverDeps } from '../../../src/routing/failover.js';
import { ProviderHealth } from '../../../src/routing/provider-health.js';
import { CredentialHealth } from '../../../src/routing/credential-health.js';
import { testProvider } from './test-provider.js';

const provider = (id: string): ProviderConfig => testProvider(id);

const route: RouteProfileConfig = {
  id: 'router/frontier',
  family: 'frontier',
  description: '',
  quotaWeight: 1,
  retryBudget: 3,
  tiers: [[{ provider: 'a', model: 'm-a', weight: 1 }], [{ provider: 'b', model: 'm-b', weight: 1 }]],
};

function setup(options: { failureThreshold?: number; keys?: string[]; source?: 'byok' | 'managed' } = {}) {
  let now = 1_000_000;
  const clock = { now: () => now };
  const breaker = { failureThreshold: options.failureThreshold ?? 1, cooldownMs: 30_000 };
  const health = new ProviderHealth(breaker, clock);
  const credentialHealth = new CredentialHealth(breaker, clock);
  const keys = new Set(options.keys ?? ['a', 'b']);
  /** Each account's key for a provider; tests replace one to see a new key start clean. */
  const keyOf = new Map<string, string>();
  const deps: FailoverDeps = {
    providers: new Map([['a', provider('a')], ['b', provider('b')]]),
    health,
    credentialHealth,
    clock,
    random: () => 0,
    credentialsOf: async (account) => (id) => (keys.has(id) ? { value: keyOf.get(`${account}/${id}`) ?? `key-${account}-${id}`, source: options.source ?? 'byok' } : undefined),
  };
  const call = { route, accountId: 'acct_1', signal: new AbortController().signal };
  return { deps, call, health, credentialHealth, keyOf, advance: (ms: number) => void (now += ms) };
}

describe('runWithFailover: what counts against a provider', () => {
  it('tries the next candidate after an unfit answer (a judge’s invalid JSON) and keeps the provider healthy', async () => {
    const { deps, call, health } = setup();
    const { value, meta } = await runWithFailover(deps, call, async (candidate) => {
      if (candidate.provider.id === 'a') throw new CandidateUnfit('invalid_judge_output', 'bad JSON');
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(meta.retryCount).toBe(1);
    expect(meta.attempts[0]).toMatchObject({ provider: 'a', status: 200, error: 'invalid_judge_output' });
    expect(health.state('a')).toBe('closed');
  });

  it('re-throws an unexpected exception (a router bug) at once, untouched, with no verdict on the provider', async () => {
    const { deps, call, health } = setup();
    const tried: string[] = [];
    const bug = new TypeError("Cannot read properties of undefined (reading 'url')");
    await expect(
      runWithFailover(deps, call, async (candidate: Candidate) => {
        tried.push(candidate.provider.id);
        throw bug;
      }),
    ).rejects.toBe(bug);
    expect(tried).toEqual(['a']);
    expect(health.snapshot(['a', 'b'])).toEqual([
      expect.objectContaining({ provider: 'a', state: 'closed', recentRequests: 0 }),
      expect.objectContaining({ provider: 'b', state: 'closed', recentRequests: 0 }),
    ]);
  });

  it('releases the half-open probe slot when a router bug ends the probe, so the next request can probe', async () => {
    const { deps, call, health, advance } = setup();
    health.recordFailure('a');
    advance(30_000);
    expect(health.state('a')).toBe('half_open');
    await expect(runWithFailover(deps, call, async () => Promise.reject(new RangeError('Maximum call stack size exceeded')))).rejects.toThrow(RangeError);
    expect(health.tryAcquire('a')).toBe(true);
  });

  it('counts what the upstream did: a failover status, and bytes its parser rejected', async () => {
    const { deps, call, health } = setup();
    const result = runWithFailover(deps, call, async (candidate) => {
      if (candidate.provider.id === 'a') throw new AttemptFailed({ status: 503, type: 'server_error', code: 'overloaded', message: 'busy' });
      throw new UpstreamStreamError({ status: 502, type: 'server_error', code: 'invalid_upstream_response', message: 'not JSON' });
    });
    await expect(result).rejects.toMatchObject({ code: 'all_upstreams_failed' });
    expect(health.state('a')).toBe('open');
    expect(health.state('b')).toBe('open');
  });

  it('tries the next candidate after a 404 (the host lacks the model), with no verdict against the provider or its key', async () => {
    const { deps, call, health, credentialHealth } = setup();
    const missing = new AttemptFailed({ status: 404, type: 'not_found_error', code: 'model_not_found', message: 'no such model' });
    const { value, meta } = await runWithFailover(deps, call, async (candidate) => {
      if (candidate.provider.id === 'a') throw missing;
      return 'served';
    });
    expect(value).toBe('served');
    expect(meta).toMatchObject({ providerId: 'b', retryCount: 1 });
    expect(meta.attempts[0]).toMatchObject({ provider: 'a', status: 404, error: 'model_not_found' });
    // A failure threshold of 1 would have opened either circuit.
    expect(health.state('a')).toBe('closed');
    expect(credentialHealth.skipReason('acct_1', 'a', 'key-acct_1-a')).toBeUndefined();
  });

  it('answers the last 404 as the request’s when every host lacks the model, not all_upstreams_failed', async () => {
    const { deps, call } = setup();
    const error = await rejection(
      runWithFailover(deps, call, async () => {
        throw new AttemptFailed({ status: 404, type: 'not_found_error', code: 'model_not_found', message: 'no such model' });
      }),
    );
    expect(error).toMatchObject({ code: 'upstream_rejected_request', status: 404, headers: { 'x-router-retry-count': '1' } });
  });

  it("treats an adapter's 400 as the request's fault: no verdict, and the next candidate may honour it", async () => {
    const { deps, call, health } = setup();
    const { value, meta } = await runWithFailover(deps, call, async (candidate) => {
      if (candidate.provider.id === 'a') throw new RouterError('unsupported_parameter', 'no audio here', { param: 'messages[0].content[0]' });
      return 'served';
    });
    expect(value).toBe('served');
    expect(meta.providerId).toBe('b');
    expect(health.snapshot(['a'])[0]).toMatchObject({ state: 'closed', recentRequests: 0 });
  });
});

/** The RouterError a failover that should fail rejects with. */
async function rejection(run: Promise<unknown>): Promise<RouterError> {
  const caught = await run.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(caught instanceof RouterError)) throw new Error('expected a RouterError');
  return caught;
}

describe('runWithFailover: the all_upstreams_failed message', () => {
  const failing = (byProvider: Record<string, AttemptFailed>) => async (candidate: Candidate) => {
    throw byProvider[candidate.provider.id]!;
  };
  const status = (code: number, errorCode: string | null, type = 'server_error') => new AttemptFailed({ status: code, type, code: errorCode, message: 'upstream text never shown' });

  it('says what was tried and how each failed, and to retry when a failure is transient', async () => {
    const { deps, call } = setup({ failureThreshold: 10 });
    const error = await rejection(runWithFailover(deps, call, failing({ a: status(503, 'overloaded'), b: status(429, 'rate_limit_exceeded') })));
    expect(error.message).toBe('No upstream could serve router/frontier. Tried: a (503 overloaded), b (429 rate_limit_exceeded). Retry in a few seconds; if it persists, see the status page.');
    expect(error.message).not.toContain('upstream text');
  });

  it('names providers skipped for having no key, and does not say retry when only a rejected key failed', async () => {
    const { deps, call } = setup({ failureThreshold: 10, keys: ['a'] });
    const error = await rejection(runWithFailover(deps, call, failing({ a: status(401, 'invalid_api_key', 'authentication_error') })));
    expect(error.message).toBe(
      'No upstream could serve router/frontier. Tried: a (401 invalid_api_key). Skipped: b (no key for it on this account). Retrying will not help: the provider rejected the key, so check the provider keys on your account page.',
    );
    expect(error.message).not.toMatch(/Retry in/);
    expect(error.details.skipped).toEqual([{ provider: 'b', reason: 'no_credential' }]);
  });

  it('names open circuits and an exhausted retry budget, and says retry when a circuit will close', async () => {
    const { deps, call, health } = setup({ failureThreshold: 1 });
    health.recordFailure('a');
    const budgetless = { ...call, route: { ...call.route, retryBudget: 0 } };
    const error = await rejection(runWithFailover(deps, budgetless, failing({ b: status(429, 'insufficient_quota', 'insufficient_quota') })));
    expect(error.message).toBe('No upstream could serve router/frontier. Tried: b (429 insufficient_quota). Skipped: a (circuit open after repeated failures). Retry in a few seconds; if it persists, see the status page.');
    const spent = await rejection(runWithFailover(setup({ failureThreshold: 10 }).deps, budgetless, failing({ a: status(500, null) })));
    expect(spent.message).toBe('No upstream could serve router/frontier. Tried: a (500 server_error). Skipped: b (retry budget used up). Retry in a few seconds; if it persists, see the status page.');
  });

  it("says retrying will not help when the only failure is an exhausted provider balance", async () => {
    const { deps, call } = setup({ failureThreshold: 10, keys: ['a'] });
    const error = await rejection(runWithFailover(deps, call, failing({ a: status(429, 'insufficient_quota', 'insufficient_quota') })));
    expect(error.message).toMatch(/Retrying will not help: the provider account's quota or credit is used up;/);
    expect([error.status, error.wire?.code, error.headers['x-should-retry']]).toEqual([429, 'insufficient_quota', 'false']);
  });

  it('keeps upstream-supplied codes to one safe word', async () => {
    const { deps, call } = setup({ failureThreshold: 10, keys: ['a'] });
    const error = await rejection(runWithFailover(deps, call, failing({ a: status(400 + 100, 'Weird Code <script> with spaces, and a very long tail that goes on') })));
    expect(error.details.attempts).toEqual([expect.objectContaining({ error: 'weird_code_script_with_spaces_and_a_very' })]);
  });
});

describe("runWithFailover: an account's own key is judged apart from its provider", () => {
  const rejectedKey = new AttemptFailed({ status: 401, type: 'authentication_error', code: 'invalid_api_key', message: 'bad key' });
  const failA = (failure: AttemptFailed) => async (candidate: Candidate) => {
    if (candidate.provider.id === 'a') throw failure;
    return candidate.provider.id;
  };

  for (const status of [401, 403]) {
    it(`a BYOK ${status} never moves the provider's circuit, and opens only that account's key's circuit`, async () => {
      const { deps, call, health } = setup({ failureThreshold: 2 });
      const failure = new AttemptFailed({ status, type: 'authentication_error', code: null, message: 'no' });
      for (let i = 0; i < 2; i++) expect((await runWithFailover(deps, call, failA(failure))).meta.retryCount).toBe(1);
      expect(health.snapshot(['a'])[0]).toMatchObject({ state: 'closed', recentRequests: 0 });

      const skipped = await runWithFailover(deps, call, failA(failure));
      expect(skipped.meta.retryCount).toBe(0);
      expect(skipped.meta.attempts[0]).toEqual({ provider: 'a', model: 'm-a', status: null, error: 'credential_rejected', latencyMs: 0, skipped: true });

      // Another account's key for the same provider is tried and serves.
      const other = await runWithFailover(deps, { ...call, accountId: 'acct_2' }, async (candidate) => candidate.provider.id);
      expect(other.value).toBe('a');
    });
  }

  it("a BYOK 429 skips only that account's key, at once and only for the wait it named, never moving the provider's circuit", async () => {
    const { deps, call, health, advance } = setup({ failureThreshold: 5 });
    const throttled = new AttemptFailed({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow', retryAfterSeconds: 0.5 });
    expect((await runWithFailover(deps, call, failA(throttled))).meta.retryCount).toBe(1);
    expect(health.snapshot(['a'])[0]).toMatchObject({ state: 'closed', recentRequests: 0 });
    expect((await runWithFailover(deps, call, failA(throttled))).meta.attempts[0]).toEqual({ provider: 'a', model: 'm-a', status: null, error: 'credential_throttled', latencyMs: 0, skipped: true });
    expect((await runWithFailover(deps, { ...call, accountId: 'acct_2' }, async (candidate) => candidate.provider.id)).value).toBe('a');
    advance(500);
    expect((await runWithFailover(deps, call, async (candidate) => candidate.provider.id)).value).toBe('a');
  });

  it('asks again at once after a 429 that named no wait', async () => {
    const { deps, call } = setup({ failureThreshold: 1 });
    const throttled = new AttemptFailed({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow' });
    for (let i = 0; i < 3; i++) expect((await runWithFailover(deps, call, failA(throttled))).meta.attempts[0]).toMatchObject({ provider: 'a', status: 429 });
  });

  it("judges the operator's managed key apart from the provider: its 401s and 429s skip that key for every account it serves, never the provider", async () => {
    const { deps, call, health, keyOf } = setup({ failureThreshold: 2, source: 'managed' });
    for (const account of ['acct_1', 'acct_2']) keyOf.set(`${account}/a`, 'operator-key-a');
    await runWithFailover(deps, call, failA(rejectedKey));
    await runWithFailover(deps, call, failA(rejectedKey));
    expect(health.snapshot(['a'])[0]).toMatchObject({ state: 'closed', recentRequests: 0 });
    const skipped = await runWithFailover(deps, { ...call, accountId: 'acct_2' }, async (candidate) => candidate.provider.id);
    expect(skipped.meta.attempts[0]).toMatchObject({ provider: 'a', error: 'credential_rejected', skipped: true });
    // An account's own key for the same provider is untouched by the operator key's trouble.
    const byok = await runWithFailover({ ...deps, credentialsOf: async (account) => (id) => ({ value: `key-${account}-${id}`, source: 'byok' }) }, call, async (candidate) => candidate.provider.id);
    expect(byok.value).toBe('a');
  });

  it("counts a 5xx to an account's own key against the provider, not the key", async () => {
    const { deps, call, health, credentialHealth } = setup({ failureThreshold: 1 });
    await runWithFailover(deps, call, failA(new AttemptFailed({ status: 503, type: 'server_error', code: 'overloaded', message: 'busy' })));
    expect(health.state('a')).toBe('open');
    expect(credentialHealth.rejection('acct_1', 'a')).toBeUndefined();
    expect(credentialHealth.skipReason('acct_1', 'a', 'key-acct_1-a')).toBeUndefined();
  });

  it('records the rejection the account app shows from the first 401, until the provider accepts the key again', async () => {
    const { deps, call, credentialHealth, advance } = setup({ failureThreshold: 5 });
    await runWithFailover(deps, call, failA(rejectedKey));
    expect(credentialHealth.rejection('acct_1', 'a')).toEqual({ status: 401, at: 1_000_000 });
    advance(1000);
    await runWithFailover(deps, call, async (candidate) => candidate.provider.id);
    expect(credentialHealth.rejection('acct_1', 'a')).toBeUndefined();
  });

  it('lets a replaced key through at once, and probes a rejected one after the cool-down', async () => {
    const { deps, call, keyOf, advance } = setup({ failureThreshold: 1 });
    await runWithFailover(deps, call, failA(rejectedKey));
    expect((await runWithFailover(deps, call, failA(rejectedKey))).meta.attempts[0]).toMatchObject({ error: 'credential_rejected', skipped: true });
    advance(30_000);
    const probe = await runWithFailover(deps, call, async (candidate) => candidate.provider.id);
    expect(probe.value).toBe('a');

    await runWithFailover(deps, call, failA(rejectedKey));
    keyOf.set('acct_1/a', 'a-new-key');
    expect((await runWithFailover(deps, call, async (candidate) => candidate.credential)).value).toBe('a-new-key');
  });

  it('says that retrying will not help when the only way left is a rejected key, and names it', async () => {
    const { deps, call } = setup({ failureThreshold: 1, keys: ['a'] });
    await rejection(runWithFailover(deps, call, failA(rejectedKey)));
    const error = await rejection(runWithFailover(deps, call, failA(rejectedKey)));
    expect(error.details.skipped).toEqual([
      { provider: 'a', reason: 'credential_rejected' },
      { provider: 'b', reason: 'no_credential' },
    ]);
    expect(error.message).toBe(
      'No upstream could serve router/frontier. Skipped: a (the provider rejected your key for it), b (no key for it on this account). Retrying will not help: the provider rejected the key, so check the provider keys on your account page.',
    );
  });

  it('answers 429 with the time left when every candidate is a throttled key, never 502', async () => {
    const { deps, call, advance } = setup({ keys: ['a'] });
    const throttled = new AttemptFailed({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow', retryAfterSeconds: 7 });
    expect((await rejection(runWithFailover(deps, call, failA(throttled)))).headers['retry-after']).toBe('7');
    advance(4500);
    const error = await rejection(runWithFailover(deps, call, failA(throttled)));
    expect([error.status, error.wire?.code, error.headers['retry-after'], error.headers['x-should-retry']]).toEqual([429, 'rate_limit_exceeded', '3', 'true']);
    expect(error.details.attempts).toEqual([{ provider: 'a', model: 'm-a', status: null, error: 'credential_throttled', latencyMs: 0, skipped: true }]);
  });

  it("skips a key until its quota's reset when the provider names one, and answers insufficient_quota meanwhile", async () => {
    const { deps, call, advance } = setup({ keys: ['a'], failureThreshold: 5 });
    const daily = new AttemptFailed({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message: 'daily', quotaResetsAt: 1_000_000 + 3_600_000 });
    expect((await rejection(runWithFailover(deps, call, failA(daily)))).headers).toMatchObject({ 'x-should-retry': 'false' });
    advance(3_599_999);
    const error = await rejection(runWithFailover(deps, call, failA(daily)));
    expect([error.status, error.wire?.code, error.headers['retry-after'], error.headers['x-should-retry']]).toEqual([429, 'insufficient_quota', undefined, 'false']);
    expect(error.details.attempts).toEqual([{ provider: 'a', model: 'm-a', status: null, error: 'credential_exhausted', latencyMs: 0, skipped: true }]);
    advance(1);
    expect((await runWithFailover(deps, call, async (candidate) => candidate.provider.id)).value).toBe('a');
  });

  it('waits out a throttled key for the Retry-After the provider gave', async () => {
    const { deps, call, advance } = setup({ failureThreshold: 1 });
    const throttled = new AttemptFailed({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow', retryAfterSeconds: 2 });
    await runWithFailover(deps, call, failA(throttled));
    advance(1999);
    expect((await runWithFailover(deps, call, failA(throttled))).meta.attempts[0]).toMatchObject({ error: 'credential_throttled', skipped: true });
    advance(1);
    expect((await runWithFailover(deps, call, async (candidate) => candidate.provider.id)).value).toBe('a');
  });
});
