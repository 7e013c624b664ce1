/**
 * The quota gate's side of ADMIT_REQUEST_SCRIPT (admit-request-script.ts): the script's arguments for one
 * request, and its answer as the slot's and the window's decisions, so the in-flight and per-minute
 * stages take them instead of asking Redis again.
 */
import { releaseOnce, type InFlightDecision, type Released } from '../concurrency-limiter.js';
import { RATE_WINDOW_MS, rateDecision } from '../memory/rate-decision.js';
import type { AlongsideQuota } from '../quota-ledger.js';
import type { RateDecision } from '../rate-limiter.js';
import { leasesKey } from './lease-keeper.js';
import { windowKey } from './create-redis-rate-limiter.js';

export type RequestOutcome = 'admitted' | 'rejected' | 'inactive' | 'card-missing' | 'counter-missing' | 'needs-reservation' | 'in-flight-full' | 'window-full';
export type RequestReply = [outcome: RequestOutcome, plan: string, limit: number, used: number, generation: string, inFlight?: number, inWindow?: number, now?: number, oldest?: string];

/** One request's keys and unique members: the same on every step of its admission, and for its undo. */
export interface WholeRequest {
  leases: string;
  window: string;
  leaseMember: string;
  windowMember: string;
  /** ARGV after the weight. */
  args: Array<string | number>;
  alongside: AlongsideQuota;
}

export function wholeRequest(keyPrefix: string, accountId: string, alongside: AlongsideQuota, leaseMs: number, unique: string): WholeRequest {
  const perPlan: Array<string | number> = [];
  for (const [plan, limits] of alongside.limitsByPlan) perPlan.push(plan, limits.requestsPerMinute, limits.maxConcurrentRequests);
  const leaseMember = unique;
  const windowMember = `${alongside.nowMs}:${unique}`;
  return {
    leases: leasesKey(keyPrefix, accountId),
    window: windowKey(keyPrefix, accountId),
    leaseMember,
    windowMember,
    args: [alongside.nowMs, RATE_WINDOW_MS, leaseMs, leaseMember, windowMember, ...perPlan],
    alongside,
  };
}

/**
 * The slot's and the window's decisions from a reply past the quota checks. `release` is the admitted
 * request's way to give its lease back; refused requests hold none.
 */
export function alongsideOf(reply: RequestReply, request: WholeRequest, release?: () => Released): { inFlight: InFlightDecision; rate: RateDecision } {
  const [outcome, plan, , , , inFlight = 0, inWindow = 0, now, oldest] = reply;
  const limits = request.alongside.limitsByPlan.get(plan);
  const nowMs = now === undefined ? request.alongside.nowMs : Number(now);
  const perMinute = limits?.requestsPerMinute ?? 0;
  const inFlightLimit = limits?.maxConcurrentRequests ?? 0;
  const slotTaken = outcome === 'admitted';
  const slotFree = outcome !== 'in-flight-full';
  const rate = rateDecision({ allowed: slotTaken, limit: perMinute, count: inWindow, oldestMs: oldest === undefined ? null : Number(oldest), nowMs });
  // Refused by the window: the slot was free but not taken, so there is nothing to give back.
  const inFlightDecision: InFlightDecision = slotFree
    ? { allowed: true, limit: inFlightLimit, inFlight, release: slotTaken && release ? releaseOnce(release) : () => undefined }
    : { allowed: false, limit: inFlightLimit, inFlight };
  return { inFlight: inFlightDecision, rate };
}
