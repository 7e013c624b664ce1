import { RouterError } from '../../core/errors.js';
import type { RouterDeps } from '../router-deps.js';
import type { Stage } from './stage.js';

/**
 * Requests per minute of the account's plan. Runs after the quota stage (which supplies the plan);
 * a request rejected here is refunded from the monthly quota by the pipeline, since nothing served it.
 */
export function createRateLimitStage(deps: Pick<RouterDeps, 'rateLimiter' | 'clock'>): Stage {
  return async (_event, ctx) => {
    const limit = ctx.plan?.requestsPerMinute ?? 0;
    const decision = await deps.rateLimiter.admit(ctx.caller!.accountId, limit, deps.clock.now());
    ctx.rate = decision;
    if (!decision.allowed) {
      throw new RouterError(
        'rate_limit_exceeded',
        `Rate limit of ${decision.limit} requests per minute reached. Retry after ${decision.retryAfterSeconds} seconds.`,
        { headers: { 'retry-after': String(decision.retryAfterSeconds) } },
      );
    }
  };
}
