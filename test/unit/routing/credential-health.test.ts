import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CredentialHealth, MAX_THROTTLE_MS } from '../../../src/routing/credential-health.js';

const BREAKER = { failureThreshold: 3, cooldownMs: 1000 };
const ACCOUNTS = ['acct_a', 'acct_b', 'acct_c'] as const;

type Step =
  | { kind: 'fail'; account: number; status: 401 | 403 | 429; retryAfterSeconds?: number }
  | { kind: 'accept'; account: number }
  | { kind: 'release'; account: number }
  | { kind: 'ask'; account: number }
  | { kind: 'wait'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('fail' as const),
    account: fc.nat(ACCOUNTS.length - 1),
    status: fc.constantFrom(401 as const, 403 as const, 429 as const),
    retryAfterSeconds: fc.option(fc.double({ min: 0, max: 2000, noNaN: true }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('accept' as const), account: fc.nat(ACCOUNTS.length - 1) }),
  fc.record({ kind: fc.constant('release' as const), account: fc.nat(ACCOUNTS.length - 1) }),
  fc.record({ kind: fc.constant('ask' as const), account: fc.nat(ACCOUNTS.length - 1) }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.nat(3000) }),
);

/** Plays the steps on a fresh breaker; returns what every `ask` of `observed` answered. */
function play(steps: readonly Step[], observed: number): Array<string | undefined> {
  let now = 0;
  const health = new CredentialHealth(BREAKER, { now: () => now });
  const answers: Array<string | undefined> = [];
  for (const s of steps) {
    if (s.kind === 'wait') {
      now += s.ms;
      continue;
    }
    const account = ACCOUNTS[s.account]!;
    if (s.kind === 'fail') {
      const failure = s.retryAfterSeconds === undefined ? { status: s.status } : { status: s.status, retryAfterSeconds: s.retryAfterSeconds };
      health.recordFailure(account, 'openai', `key-${account}`, failure);
    }
    if (s.kind === 'accept') health.recordSuccess(account, 'openai', `key-${account}`);
    if (s.kind === 'release') health.release(account, 'openai', `key-${account}`);
    if (s.kind === 'ask') {
      const answer = health.skipReason(account, 'openai', `key-${account}`);
      if (s.account === observed) answers.push(answer);
    }
  }
  return answers;
}

describe('CredentialHealth', () => {
  it("no sequence of other accounts' failures changes what one account's key is told", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.nat(ACCOUNTS.length - 1), (steps, observed) => {
        const alone = steps.filter((s) => s.kind === 'wait' || s.account === observed);
        expect(play(steps, observed)).toEqual(play(alone, observed));
      }),
    );
  });

  it('never skips a key before failureThreshold failures in a row, nor right after the provider accepted it', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        let now = 0;
        const health = new CredentialHealth(BREAKER, { now: () => now });
        let inARow = 0;
        for (const s of steps) {
          if (s.kind === 'wait') now += s.ms;
          if (s.kind === 'wait' || s.account !== 0) continue;
          if (s.kind === 'fail') {
            health.recordFailure('acct_a', 'openai', 'k', { status: s.status });
            inARow++;
          }
          if (s.kind === 'accept') {
            health.recordSuccess('acct_a', 'openai', 'k');
            inARow = 0;
          }
          if (s.kind === 'ask') {
            const answer = health.skipReason('acct_a', 'openai', 'k');
            if (inARow < BREAKER.failureThreshold) expect(answer).toBeUndefined();
            // A probe let through is answered before the next ask, as the failover loop does.
            if (answer === undefined) health.release('acct_a', 'openai', 'k');
          }
        }
      }),
    );
  });

  it('skips an open key until its cool-down, then lets exactly one probe through', () => {
    let now = 0;
    const health = new CredentialHealth(BREAKER, { now: () => now });
    for (let i = 0; i < 3; i++) health.recordFailure('acct_a', 'openai', 'k', { status: 401 });
    expect(health.skipReason('acct_a', 'openai', 'k')).toBe('credential_rejected');
    now += 999;
    expect(health.skipReason('acct_a', 'openai', 'k')).toBe('credential_rejected');
    now += 1;
    expect(health.skipReason('acct_a', 'openai', 'k')).toBeUndefined();
    expect(health.skipReason('acct_a', 'openai', 'k')).toBe('credential_rejected');
    health.recordFailure('acct_a', 'openai', 'k', { status: 401 });
    expect(health.skipReason('acct_a', 'openai', 'k')).toBe('credential_rejected');
    now += 1000;
    expect(health.skipReason('acct_a', 'openai', 'k')).toBeUndefined();
    health.recordSuccess('acct_a', 'openai', 'k');
    expect(health.skipReason('acct_a', 'openai', 'k')).toBeUndefined();
    expect(health.rejection('acct_a', 'openai')).toBeUndefined();
  });

  it('skips a throttled key from the first 429 for exactly the wait it named, then uses it again without a probe', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_THROTTLE_MS }), fc.nat(MAX_THROTTLE_MS * 2), (waitMs, later) => {
        let now = 0;
        const health = new CredentialHealth(BREAKER, { now: () => now });
        health.recordFailure('acct_a', 'openai', 'k', { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', retryAfterSeconds: waitMs / 1000 });
        now = later;
        const expected = later < waitMs ? 'credential_throttled' : undefined;
        expect(health.skipReason('acct_a', 'openai', 'k')).toBe(expected);
        expect(health.skipReason('acct_a', 'openai', 'k')).toBe(expected);
        expect(health.skippedForSeconds('acct_a', 'openai', 'k')).toBeCloseTo(Math.max(0, waitMs - later) / 1000, 9);
      }),
    );
  });

  it('never skips for a 429 that named no wait', () => {
    const health = new CredentialHealth({ failureThreshold: 1, cooldownMs: 1000 }, { now: () => 0 });
    for (let i = 0; i < 5; i++) health.recordFailure('acct_a', 'openai', 'k', { status: 429 });
    expect(health.skipReason('acct_a', 'openai', 'k')).toBeUndefined();
  });

  it('skips an exhausted key until the reset the provider named, then probes it once', () => {
    let now = 0;
    const health = new CredentialHealth(BREAKER, { now: () => now });
    health.recordFailure('acct_a', 'gemini', 'k', { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', quotaResetsAt: 5 * 3_600_000 });
    now = 5 * 3_600_000 - 1;
    expect(health.skipReason('acct_a', 'gemini', 'k')).toBe('credential_exhausted');
    now += 1;
    expect(health.skipReason('acct_a', 'gemini', 'k')).toBeUndefined();
    expect(health.skipReason('acct_a', 'gemini', 'k')).toBe('credential_exhausted');
    health.recordSuccess('acct_a', 'gemini', 'k');
    expect(health.skipReason('acct_a', 'gemini', 'k')).toBeUndefined();
  });

  it("honours a throttle's Retry-After, up to a bound", () => {
    let now = 0;
    const health = new CredentialHealth({ failureThreshold: 1, cooldownMs: 1000 }, { now: () => now });
    health.recordFailure('acct_a', 'openai', 'k', { status: 429, retryAfterSeconds: 86_400 });
    now += MAX_THROTTLE_MS - 1;
    expect(health.skipReason('acct_a', 'openai', 'k')).toBe('credential_throttled');
    now += 1;
    expect(health.skipReason('acct_a', 'openai', 'k')).toBeUndefined();
  });

  it('forgets a key the account replaced, and drops a record when asked about another key', () => {
    const health = new CredentialHealth({ failureThreshold: 1, cooldownMs: 1000 }, { now: () => 5 });
    health.recordFailure('acct_a', 'openai', 'old', { status: 403 });
    expect(health.rejection('acct_a', 'openai')).toEqual({ status: 403, at: 5 });
    expect(health.skipReason('acct_a', 'openai', 'new')).toBeUndefined();
    expect(health.rejection('acct_a', 'openai')).toBeUndefined();
    health.recordFailure('acct_a', 'openai', 'new', { status: 401 });
    health.forget('acct_a', 'openai');
    expect(health.skipReason('acct_a', 'openai', 'new')).toBeUndefined();
  });

  it('stays bounded: past its size the least recently used keys are dropped', () => {
    const health = new CredentialHealth({ failureThreshold: 1, cooldownMs: 1000 }, { now: () => 0 }, 10);
    for (let i = 0; i < 100; i++) health.recordFailure(`acct_${i}`, 'openai', 'k', { status: 401 });
    expect(health.rejection('acct_0', 'openai')).toBeUndefined();
    expect(health.rejection('acct_99', 'openai')).toEqual({ status: 401, at: 0 });
  });
});
