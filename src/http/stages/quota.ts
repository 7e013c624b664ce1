import { INACTIVE_ACCOUNT_MESSAGE } from '../../accounts/key-service.js';
import { quotaPeriod } from '../../core/quota-period.js';
import { RouterError } from '../../core/errors.js';
import { upgradePlanFor } from '../../config/upgrade-plan.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import type { Stage } from './stage.js';

type QuotaDeps = Pick<RouterDeps, 'quota' | 'clock' | 'plans' | 'quotaLimits'>;

/**
 * Monthly quota for model traffic: one atomic check-and-increment by the quota ledger, which also
 * returns the account's current plan, so a plan change applies to the very next request. The route
 * profile's quotaWeight is what a request costs.
 */
export function createQuotaStage(deps: QuotaDeps): Stage {
  return async (_event, ctx) => {
    const now = deps.clock.now();
    const period = quotaPeriod(now);
    const weight = ctx.route?.quotaWeight ?? 1;
    const admission = await deps.quota.admit({ accountId: ctx.caller!.accountId, period: period.key, weight, limitsByPlan: deps.quotaLimits });
    if (admission.status !== 'active') throw new RouterError('inactive_account', INACTIVE_ACCOUNT_MESSAGE);
    ctx.plan = deps.plans.get(admission.plan);
    ctx.quota = { limit: admission.limit, used: admission.used, period };
    if (!admission.admitted) {
      throw new RouterError(
        'monthly_quota_exceeded',
        `The monthly request quota of the ${ctx.plan?.name ?? admission.plan} plan (${admission.limit} requests) is used up. It resets at ${period.resetsAt}; upgrade for more.`,
        { upgradePlan: upgradePlanFor(deps.plans.values(), ctx.plan, { kind: 'more_requests' }) },
      );
    }
    ctx.admitted = { weight, refund: admission.refund };
  };
}

/**
 * For /v1 calls that are not model traffic (the model list): read the quota without counting, so the
 * response still carries exact X-Quota-* headers.
 */
export function createQuotaPeekStage(deps: QuotaDeps): Stage {
  return async (_event, ctx) => {
    await peekQuota(deps, ctx);
    if (ctx.quota === undefined) throw new RouterError('inactive_account', INACTIVE_ACCOUNT_MESSAGE);
  };
}

/** Fill ctx.plan and ctx.quota without counting; leaves them unset for an unusable account. */
export async function peekQuota(deps: QuotaDeps, ctx: RouterRequestContext): Promise<void> {
  const period = quotaPeriod(deps.clock.now());
  const standing = await deps.quota.peek(ctx.caller!.accountId, period.key, deps.quotaLimits);
  if (!standing || standing.status !== 'active') return;
  ctx.plan = deps.plans.get(standing.plan);
  ctx.quota = { limit: standing.limit, used: standing.used, period };
}
