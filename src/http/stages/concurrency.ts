import { RouterError } from '../../core/errors.js';
import { upgradePlanFor } from '../../config/upgrade-plan.js';
import type { RouterDeps } from '../router-deps.js';
import type { Stage } from './stage.js';

/**
 * The plan's cap on the account's model requests in flight at once (all its keys, every worker and
 * instance). Runs after the quota stage (which supplies the plan) and before the per-minute window, so a
 * refused request takes nothing from the window and gives its monthly count back (the pipeline refunds
 * it). The slot is kept on the context and given back by the pipeline once the request has ended,
 * however it ended.
 */
export function createConcurrencyStage(deps: Pick<RouterDeps, 'concurrency' | 'plans'>): Stage {
  return async (_event, ctx) => {
    const limit = ctx.plan?.maxConcurrentRequests ?? 0;
    const decision = await deps.concurrency.acquire(ctx.caller!.accountId, limit);
    if (!decision.allowed) {
      // Nobody can tell when one of the account's requests will end; a second is the shortest honest wait.
      throw new RouterError(
        'concurrency_limit_exceeded',
        `This account already has ${decision.inFlight} requests in flight, the most its plan allows at once (${limit}). Retry once one of them has finished.`,
        { headers: { 'retry-after': '1' }, upgradePlan: upgradePlanFor(deps.plans.values(), ctx.plan, { kind: 'more_in_flight' }) },
      );
    }
    ctx.releaseSlot = decision.release;
  };
}
