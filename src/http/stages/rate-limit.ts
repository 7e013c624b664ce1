import { RouterError } from '../../core/errors.js';
import type { RouterDeps } from '../router-deps.js';
import { isPromise } from '../../core/maybe-promise.js';
import type { RateDecision } from '../../stores/rate-limiter.js';
import { establishing, type Authenticated, type Rated, type Standing } from '../request-context.js';
import type { Stage } from './stage.js';

/**
 * Requests per minute of the account's plan. Needs the plan (the quota stage's, or its peek's);
 * a request rejected here is refunded from the monthly quota by the pipeline, since nothing served it.
 */
export function createRateLimitStage(deps: Pick<RouterDeps, 'rateLimiter' | 'clock'>): Stage<Authenticated & Standing, Rated> {
  return (_event, request) => {
    const limit = request.plan?.requestsPerMinute ?? 0;
    const decided = request.decidedWithQuota?.rate;
    // Decided with the quota (one Redis script): the limiter's own log of this instance still counts it.
    if (decided?.allowed) deps.rateLimiter.recordAdmitted?.(request.caller.accountId, limit, deps.clock.now());
    const decision = decided ?? deps.rateLimiter.admit(request.caller.accountId, limit, deps.clock.now());
    // Decided in memory (one process, or with the quota): no promise, no await.
    if (!isPromise(decision)) return void rate(request, decision);
    return decision.then((window) => rate(request, window));
  };
}

/** Sets the window's decision on the request (its headers report it, refused or not) and refuses past the limit. */
function rate(request: Authenticated & Standing, decision: RateDecision): Rated {
  const rated = establishing<Rated>(request);
  // Set before the refusal: a refused request's headers report the window that refused it.
  rated.rate = decision;
  if (!decision.allowed) {
    throw new RouterError(
      'rate_limit_exceeded',
      `Rate limit of ${decision.limit} requests per minute reached. Retry after ${decision.retryAfterSeconds} seconds.`,
      { headers: { 'retry-after': String(decision.retryAfterSeconds) } },
    );
  }
  return rated;
}
