import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { UpstreamFailure } from '../../../src/upstream/upstream-failure.js';
import { upstreamRefusal } from '../../../src/routing/upstream-refusal.js';

const rateLimited = (retryAfterSeconds?: number): UpstreamFailure => ({
  status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down', ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
});
const noQuota: UpstreamFailure = { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message: 'no quota' };
const billing: UpstreamFailure = { status: 402, type: 'insufficient_quota', code: 'insufficient_quota', message: 'no credit' };
const serverError: UpstreamFailure = { status: 500, type: 'server_error', code: null, message: 'boom' };

/** The route's all_upstreams_failed as failover.ts makes it: one attempt per failure, then the skipped. */
function failedWith(failures: readonly UpstreamFailure[], skipped: Array<{ provider: string; reason: string }> = []): RouterError {
  const attempts = failures.map((failure, i) => ({ provider: `p${i}`, model: 'm', status: failure.status, error: failure.code ?? 'server_error', latencyMs: 1 }));
  return new RouterError('all_upstreams_failed', 'No upstream could serve router/frontier.', {
    details: { attempts, skipped },
    headers: { 'x-router-retry-count': String(Math.max(0, failures.length - 1)) },
  });
}
const verdict = (failures: UpstreamFailure[], skipped?: Array<{ provider: string; reason: string }>) => upstreamRefusal('router/frontier', failedWith(failures, skipped), failures);

describe('upstreamRefusal', () => {
  it('answers 429 rate_limit_exceeded with the smallest Retry-After, rounded up to whole seconds', () => {
    const error = verdict([rateLimited(20), rateLimited(2.2), rateLimited()]);
    expect([error?.status, error?.wire, error?.headers['retry-after'], error?.headers['x-should-retry']]).toEqual([
      429, { type: 'rate_limit_error', code: 'rate_limit_exceeded' }, '3', 'true',
    ]);
    expect(error?.code).toBe('all_upstreams_failed');
    expect(error?.message).toBe('No upstream could serve router/frontier. Tried: p0 (429 rate_limit_exceeded), p1 (429 rate_limit_exceeded), p2 (429 rate_limit_exceeded). Every provider is rate-limiting it: retry after 3 seconds.');
  });

  it('tells the client to wait 1 second when no provider said how long', () => {
    expect(verdict([rateLimited()])?.headers['retry-after']).toBe('1');
  });

  it('answers insufficient_quota, never to be retried: 402 when every refusal was a 402, else 429', () => {
    expect([verdict([billing, billing])?.status, verdict([billing])?.headers['x-should-retry']]).toEqual([402, 'false']);
    const mixed = verdict([noQuota, billing]);
    expect([mixed?.status, mixed?.wire?.code, mixed?.headers['retry-after']]).toEqual([429, 'insufficient_quota', undefined]);
  });

  it('keeps the 502 when any attempt failed otherwise, or a candidate was skipped for an open circuit or a rejected key', () => {
    expect(verdict([rateLimited(1), serverError])).toBeUndefined();
    expect(verdict([rateLimited(1)], [{ provider: 'x', reason: 'circuit_open' }])).toBeUndefined();
    expect(verdict([noQuota], [{ provider: 'x', reason: 'credential_rejected' }])).toBeUndefined();
    expect(verdict([])).toBeUndefined();
  });

  it("counts a throttled own key as rate limiting, and ignores candidates without a key or beyond the retry budget", () => {
    expect(verdict([noQuota], [{ provider: 'x', reason: 'credential_throttled' }])?.wire?.code).toBe('rate_limit_exceeded');
    expect(verdict([noQuota], [{ provider: 'x', reason: 'no_credential' }, { provider: 'y', reason: 'retry_budget' }])?.wire?.code).toBe('insufficient_quota');
  });

  it('property: a verdict exactly when every attempt refused; the rate limit wins a mix; Retry-After is the ceiling of the smallest given', () => {
    const failure = fc.oneof(
      fc.option(fc.double({ min: 0, max: 600, noNaN: true }), { nil: undefined }).map(rateLimited),
      fc.constant(noQuota),
      fc.constant(billing),
      fc.constantFrom(serverError, { ...serverError, status: 503 }, { ...serverError, status: 401, code: 'invalid_api_key' }),
    );
    fc.assert(
      fc.property(fc.array(failure, { minLength: 1, maxLength: 6 }), (failures) => {
        const error = verdict(failures);
        const refusals = failures.every((f) => f.status === 402 || (f.status === 429));
        expect(error !== undefined).toBe(refusals);
        if (!error) return;
        const limited = failures.filter((f) => f.code === 'rate_limit_exceeded');
        if (limited.length === 0) {
          expect(error.wire?.code).toBe('insufficient_quota');
          expect(error.status).toBe(failures.every((f) => f.status === 402) ? 402 : 429);
          return;
        }
        const given = limited.flatMap((f) => (f.retryAfterSeconds === undefined ? [] : [f.retryAfterSeconds]));
        const expected = given.length === 0 ? 1 : Math.max(1, Math.ceil(Math.min(...given)));
        expect([error.status, error.wire?.code, Number(error.headers['retry-after'])]).toEqual([429, 'rate_limit_exceeded', expected]);
      }),
    );
  });
});
