import { INACTIVE_ACCOUNT_MESSAGE } from '../../accounts/key-service.js';
import { quotaPeriod, type QuotaPeriod } from '../../core/quota-period.js';
import { RouterError } from '../../core/errors.js';
import { upgradePlanFor } from '../../config/upgrade-plan.js';
import type { RouterDeps } from '../router-deps.js';
import { isPromise } from '../../core/maybe-promise.js';
import type { QuotaDecision } from '../../stores/quota-ledger.js';
import { establishing, type Authenticated, type Establishing, type Counted, type Standing, type WithBody } from '../request-context.js';
import type { Stage } from './stage.js';

type QuotaDeps = Pick<RouterDeps, 'quota' | 'clock' | 'plans' | 'quotaLimits'>;

/**
 * Monthly quota for model traffic: one atomic check-and-increment by the quota ledger, which also
 * returns the account's current plan, so a plan change applies to the very next request. The route
 * profile's quotaWeight is what a request costs (so it needs the body's route).
 */
export function createQuotaStage(deps: QuotaDeps): Stage<Authenticated & WithBody, Counted> {
  // The Redis gate decides the slot and the window in the same round trip (the other ledgers ignore these).
  const limitsByPlan = new Map([...deps.plans].map(([id, plan]) => [id, { requestsPerMinute: plan.requestsPerMinute, maxConcurrentRequests: plan.maxConcurrentRequests }]));
  return (_event, request) => {
    const now = deps.clock.now();
    const period = quotaPeriod(now);
    const weight = request.route?.quotaWeight ?? 1;
    const input = { accountId: request.caller.accountId, period: period.key, weight, limitsByPlan: deps.quotaLimits };
    const admission = deps.quota.admit(input, { nowMs: now, limitsByPlan });
    // Decided in memory (the embedded gate's usual case): no promise, no await.
    if (!isPromise(admission)) return void count(request, admission, period, weight);
    return admission.then((decided) => count(request, decided, period, weight));
  };

  /** Sets the account's plan and quota on the request (its headers report them, refused or not) and counts it, or refuses. */
  function count(request: Authenticated & WithBody, admission: QuotaDecision, period: QuotaPeriod, weight: number): Counted {
    if (admission.status !== 'active') throw new RouterError('inactive_account', INACTIVE_ACCOUNT_MESSAGE);
    // Plan and quota are set before a refusal: its headers report the quota that refused it.
    const standing = establishing<Standing>(request);
    const plan = deps.plans.get(admission.plan);
    standing.plan = plan;
    standing.quota = { limit: admission.limit, used: admission.used, period };
    standing.decidedWithQuota = admission.alongside;
    if (!admission.admitted) {
      throw new RouterError(
        'monthly_quota_exceeded',
        `The monthly request quota of the ${plan?.name ?? admission.plan} plan (${admission.limit} requests) is used up. It resets at ${period.resetsAt}; upgrade for more.`,
        { upgradePlan: upgradePlanFor(deps.plans.values(), plan, { kind: 'more_requests' }) },
      );
    }
    const counted = establishing<Counted>(standing);
    counted.admitted = { weight, refund: admission.refund };
    return counted;
  }
}

/**
 * For /v1 calls that are not model traffic (the model list, a token count): read the quota without
 * counting, so the response still carries exact X-Quota-* headers.
 */
export function createQuotaPeekStage(deps: QuotaDeps): Stage<Authenticated, Standing> {
  return async (_event, request) => {
    const standing = establishing<Standing>(request);
    if (!(await peekStanding(deps, request.caller.accountId, standing))) throw new RouterError('inactive_account', INACTIVE_ACCOUNT_MESSAGE);
    return standing;
  };
}

/**
 * Sets the account's plan and quota on the request, read without counting; false (and nothing set) for
 * an unusable account. Also how the pipeline fills the limit headers of a request refused before them.
 */
export async function peekStanding(deps: QuotaDeps, accountId: string, into: Establishing<Standing>): Promise<boolean> {
  const period = quotaPeriod(deps.clock.now());
  const standing = await deps.quota.peek(accountId, period.key, deps.quotaLimits);
  if (!standing || standing.status !== 'active') return false;
  into.plan = deps.plans.get(standing.plan);
  into.quota = { limit: standing.limit, used: standing.used, period };
  return true;
}
