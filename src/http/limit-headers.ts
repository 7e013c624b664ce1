/**
 * The quota and rate-limit headers every authenticated /v1 response carries (success, error and
 * streams alike), plus the IETF draft RateLimit-Policy / RateLimit fields with the same numbers.
 */
import type { ServerResponse } from 'node:http';
import type { RequestState } from './request-context.js';

/**
 * Set straight on the response (every request pays for this, so no intermediate object), from what the
 * request has established: the window's decision and the monthly quota, each when known.
 */
export function setLimitHeaders(res: ServerResponse, limits: Pick<RequestState, 'quota' | 'rate'>, nowMs: number): void {
  const { quota, rate } = limits;
  let policy = '';
  let state = '';
  if (rate) {
    res.setHeader('x-ratelimit-limit', String(rate.limit));
    res.setHeader('x-ratelimit-remaining', String(rate.remaining));
    res.setHeader('x-ratelimit-reset', String(rate.resetSeconds));
    policy = `"minute";q=${rate.limit};w=60`;
    state = `"minute";r=${rate.remaining};t=${rate.resetSeconds}`;
  }
  if (quota) {
    const { period } = quota;
    const remaining = Math.max(0, quota.limit - quota.used);
    const secondsToReset = Math.max(0, Math.ceil((period.resetsAtMs - nowMs) / 1000));
    res.setHeader('x-quota-limit', String(quota.limit));
    res.setHeader('x-quota-used', String(quota.used));
    res.setHeader('x-quota-remaining', String(remaining));
    res.setHeader('x-quota-period', 'monthly');
    res.setHeader('x-quota-reset', period.resetsAt);
    const monthly = `"monthly";q=${quota.limit};w=${(period.resetsAtMs - period.startsAtMs) / 1000}`;
    const monthlyState = `"monthly";r=${remaining};t=${secondsToReset}`;
    policy = policy === '' ? monthly : `${policy}, ${monthly}`;
    state = state === '' ? monthlyState : `${state}, ${monthlyState}`;
  }
  if (policy !== '') {
    res.setHeader('ratelimit-policy', policy);
    res.setHeader('ratelimit', state);
  }
}
