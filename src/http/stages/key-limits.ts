import type { KeyLimitService } from '../../accounts/key-limit-service.js';
import type { KeyLimits } from '../../stores/key-limit-store.js';
import { RouterError } from '../../core/errors.js';
import { quotaPeriod, type QuotaPeriod } from '../../core/quota-period.js';
import type { RouterDeps } from '../router-deps.js';
import type { Authenticated, Counted } from '../request-context.js';
import type { Stage } from './stage.js';

type KeyLimitsDeps = Pick<RouterDeps, 'store' | 'rateLimiter' | 'clock'>;

/**
 * A key's own limits below the plan's (set in the account app): a monthly request cap counted per key,
 * and a per-minute limit on its own window. Runs after the account's quota and rate limit; a request
 * refused here gives back the account's count (the pipeline refunds it) and its own.
 */
export function createKeyLimitsStage(deps: KeyLimitsDeps, limits: KeyLimitService): Stage<Authenticated & Counted> {
  return withOwnLimits(limits, async (request: Authenticated & Counted, own) => {
    const keyId = request.caller.keyId;
    const now = deps.clock.now();
    if (own.monthlyRequests !== null) {
      const period = quotaPeriod(now);
      const admitted = request.admitted;
      const weight = admitted.weight;
      const decision = await deps.store.admitKeyQuota({ keyId, period: period.key, weight, limit: own.monthlyRequests });
      if (!decision.admitted) throw keyQuotaExceeded(own.monthlyRequests, period);
      const accountRefund = admitted.refund;
      admitted.refund = async () => {
        await accountRefund();
        await deps.store.refundKeyQuota(keyId, period.key, weight);
      };
    }
    await admitKeyMinute(deps, keyId, own, now);
  });
}

/**
 * The same limits for a call that is not counted against the month (a token count): refused once the
 * key's monthly cap is used up, without adding to it, and counted in the key's per-minute window as the
 * account's window counts it.
 */
export function createKeyLimitsPeekStage(deps: KeyLimitsDeps, limits: KeyLimitService): Stage<Authenticated> {
  return withOwnLimits(limits, async (request: Authenticated, own) => {
    const keyId = request.caller.keyId;
    const now = deps.clock.now();
    if (own.monthlyRequests !== null) {
      const period = quotaPeriod(now);
      if ((await deps.store.readKeyQuota(keyId, period.key)) >= own.monthlyRequests) throw keyQuotaExceeded(own.monthlyRequests, period);
    }
    await admitKeyMinute(deps, keyId, own, now);
  });
}

/** Most keys have no limits of their own and their (lack of) limits is cached: that costs no await. */
function withOwnLimits<R extends Authenticated>(limits: KeyLimitService, enforce: (request: R, own: KeyLimits) => Promise<void>): Stage<R> {
  return (_event, request) => {
    const cached = limits.cached(request.caller.keyId);
    if (cached) return hasOwnLimits(cached) ? enforce(request, cached) : undefined;
    return limits.get(request.caller.keyId).then((own) => (hasOwnLimits(own) ? enforce(request, own) : undefined));
  };
}

async function admitKeyMinute(deps: KeyLimitsDeps, keyId: string, own: KeyLimits, now: number): Promise<void> {
  if (own.requestsPerMinute === null) return;
  const decision = await deps.rateLimiter.admit(`key:${keyId}`, own.requestsPerMinute, now);
  if (!decision.allowed) {
    throw new RouterError(
      'key_rate_limit_exceeded',
      `This key's own limit of ${own.requestsPerMinute} requests per minute is reached. Retry after ${decision.retryAfterSeconds} seconds.`,
      { headers: { 'retry-after': String(decision.retryAfterSeconds) } },
    );
  }
}

function keyQuotaExceeded(monthlyRequests: number, period: QuotaPeriod): RouterError {
  return new RouterError(
    'key_quota_exceeded',
    `This key's own monthly cap (${monthlyRequests} requests) is used up; it resets at ${period.resetsAt}. Raise or remove the cap on the keys page, or use another key.`,
  );
}

function hasOwnLimits(own: KeyLimits): boolean {
  return own.monthlyRequests !== null || own.requestsPerMinute !== null;
}
