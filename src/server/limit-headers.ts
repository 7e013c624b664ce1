/**
 * The quota and rate-limit headers every authenticated /v1 response carries (success, error and
 * streams alike), plus the IETF draft RateLimit-Policy / RateLimit fields with the same numbers.
 */
import type { RouterRequestContext } from './request-context.js';

export function limitHeaders(ctx: RouterRequestContext, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  const { quota, rate } = ctx;
  const policies: string[] = [];
  const states: string[] = [];
  if (rate) {
    headers['x-ratelimit-limit'] = String(rate.limit);
    headers['x-ratelimit-remaining'] = String(rate.remaining);
    headers['x-ratelimit-reset'] = String(rate.resetSeconds);
    policies.push(`"minute";q=${rate.limit};w=60`);
    states.push(`"minute";r=${rate.remaining};t=${rate.resetSeconds}`);
  }
  if (quota) {
    const remaining = Math.max(0, quota.limit - quota.used);
    const secondsToReset = Math.max(0, Math.ceil((Date.parse(quota.resetsAt) - nowMs) / 1000));
    headers['x-quota-limit'] = String(quota.limit);
    headers['x-quota-used'] = String(quota.used);
    headers['x-quota-remaining'] = String(remaining);
    headers['x-quota-period'] = 'monthly';
    headers['x-quota-reset'] = quota.resetsAt;
    policies.push(`"monthly";q=${quota.limit};w=${monthSeconds(quota.period)}`);
    states.push(`"monthly";r=${remaining};t=${secondsToReset}`);
  }
  if (policies.length > 0) {
    headers['ratelimit-policy'] = policies.join(', ');
    headers['ratelimit'] = states.join(', ');
  }
  return headers;
}

/** Length in seconds of the calendar month named by a `YYYY-MM` period key. */
function monthSeconds(period: string): number {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return (Date.UTC(year, month, 1) - Date.UTC(year, month - 1, 1)) / 1000;
}
