/**
 * The quota and rate-limit headers of two model requests must tell one consistent story: the same
 * limits and reset, a count that moved forward by at least the first request, remaining = limit − used.
 */
import type { ProbeResponse } from './probe-response.js';
import { expectThat, type ProbeSession } from './probe-session.js';

export const LIMIT_CHECK = 'quota and rate-limit headers agree across two requests';

export async function runLimitChecks(session: ProbeSession, counted: readonly ProbeResponse[]): Promise<void> {
  const [first, second] = counted;
  if (!first || !second) {
    session.skip('authenticated', LIMIT_CHECK, 'needs two model requests that succeeded');
    return;
  }
  await session.check('authenticated', LIMIT_CHECK, async () => {
    const read = (r: ProbeResponse) => ({
      limit: Number(r.headers.get('x-quota-limit')),
      used: Number(r.headers.get('x-quota-used')),
      remaining: Number(r.headers.get('x-quota-remaining')),
      period: r.headers.get('x-quota-period'),
      reset: r.headers.get('x-quota-reset') ?? '',
      rateLimit: Number(r.headers.get('x-ratelimit-limit')),
      rateRemaining: Number(r.headers.get('x-ratelimit-remaining')),
    });
    const [a, b] = [read(first), read(second)];
    for (const [r, h] of [[first, a], [second, b]] as const) {
      expectThat(h.period === 'monthly' && Number.isInteger(h.limit) && Number.isInteger(h.used), 'X-Quota-Period monthly and whole-number X-Quota-Limit and X-Quota-Used', r);
      expectThat(h.remaining === Math.max(0, h.limit - h.used), `X-Quota-Remaining = max(0, limit − used) = ${Math.max(0, h.limit - h.used)}`, r);
      expectThat(Date.parse(h.reset) > Date.now(), 'X-Quota-Reset in the future', r);
      expectThat(h.rateRemaining >= 0 && h.rateRemaining <= h.rateLimit, 'X-RateLimit-Remaining between 0 and X-RateLimit-Limit', r);
    }
    expectThat(a.limit === b.limit && a.reset === b.reset && a.rateLimit === b.rateLimit, 'the same limits and reset on both', second);
    expectThat(b.used > a.used, `X-Quota-Used above the first request's ${a.used}`, second);
    return `used ${a.used} → ${b.used} of ${a.limit}, ${b.rateRemaining} of ${b.rateLimit} left this minute`;
  });
}
