import { RouterError } from '../../core/errors.js';
import { upgradePlanFor } from '../../config/upgrade-plan.js';
import type { RouterDeps } from '../router-deps.js';
import { isPromise } from '../../core/maybe-promise.js';
import type { InFlightDecision } from '../../stores/concurrency-limiter.js';
import { establishing, type Authenticated, type InFlight, type Standing } from '../request-context.js';
import type { Stage } from './stage.js';

/** An admitted decision always carries its release (stores/concurrency-limiter.ts); this only satisfies the type. */
const NOTHING_TO_RELEASE = (): undefined => undefined;

/**
 * The plan's cap on the account's model requests in flight at once (all its keys, every worker and
 * instance). Needs the plan (the quota stage's); in model traffic it runs before the per-minute window, so a
 * refused request takes nothing from the window and gives its monthly count back (the pipeline refunds
 * it). The slot is kept on the request and given back by the pipeline once the request has ended,
 * however it ended.
 */
export function createConcurrencyStage(deps: Pick<RouterDeps, 'concurrency' | 'plans'>): Stage<Authenticated & Standing, InFlight> {
  return (_event, request) => {
    const limit = request.plan?.maxConcurrentRequests ?? 0;
    const decision = request.decidedWithQuota?.inFlight ?? deps.concurrency.acquire(request.caller.accountId, limit);
    // Taken in memory (one process, or decided with the quota): no promise, no await.
    if (!isPromise(decision)) return void hold(request, decision, limit);
    return decision.then((decided) => hold(request, decided, limit));
  };

  /** Keeps the slot on the request for the pipeline to give back, or refuses when none was free. */
  function hold(request: Authenticated & Standing, decision: InFlightDecision, limit: number): InFlight {
    if (!decision.allowed) {
      // Nobody can tell when one of the account's requests will end; a second is the shortest honest wait.
      throw new RouterError(
        'concurrency_limit_exceeded',
        `This account already has ${decision.inFlight} requests in flight, the most its plan allows at once (${limit}). Retry once one of them has finished.`,
        { headers: { 'retry-after': '1' }, upgradePlan: upgradePlanFor(deps.plans.values(), request.plan, { kind: 'more_in_flight' }) },
      );
    }
    const inFlight = establishing<InFlight>(request);
    inFlight.releaseSlot = decision.release ?? NOTHING_TO_RELEASE;
    return inFlight;
  }
}
