/** The server span's router.limit.decision: admitted, the limit that refused, or not reached. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { limitDecision } from '../../../src/runtime/observers/tracing-observer.js';

const LIMITS = ['monthly_quota_exceeded', 'rate_limit_exceeded', 'concurrency_limit_exceeded', 'key_quota_exceeded', 'key_rate_limit_exceeded', 'spend_cap_reached'];

describe('limitDecision', () => {
  it('admitted whatever happened after admission', () => {
    expect(limitDecision({ admitted: true, errorCode: null })).toBe('admitted');
    expect(limitDecision({ admitted: true, errorCode: 'all_upstreams_failed' })).toBe('admitted');
  });

  it('names each limit that refused', () => {
    for (const code of LIMITS) expect(limitDecision({ admitted: false, errorCode: code as never })).toBe(code);
  });

  it('not_reached for a request refused before the limits (authentication, the body) or by anything else', () => {
    expect(limitDecision({ admitted: false, errorCode: 'invalid_api_key' as never })).toBe('not_reached');
    expect(limitDecision({ admitted: false, errorCode: null })).toBe('not_reached');
    fc.assert(
      fc.property(fc.string(), (code) => {
        fc.pre(!LIMITS.includes(code));
        expect(limitDecision({ admitted: false, errorCode: code as never })).toBe('not_reached');
      }),
    );
  });
});
