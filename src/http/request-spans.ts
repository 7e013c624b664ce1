/**
 * What a route passes on of its request's trace (tracing on; src/tracing/): the server span as the parent
 * of the failover loop's attempt spans, and the spend gate's admission span. Nothing when tracing is off.
 */
import type { SpanScope } from '../tracing/tracing.js';
import type { SpendGate, SpendRequest, SpendReservation } from '../usage/spend-gate.js';
import type { Received } from './request-context.js';

/** A FailoverCall's `trace`: its attempts' spans go under the request's server span (none when tracing is off). */
export function attemptsParent(request: Pick<Received, 'trace'>): SpanScope | undefined {
  return request.trace?.server;
}

/** The spend gate's reservation, in its own span (`router.spend_gate`) when tracing is on, a refusal marked with its code. */
export function reserveSpend(request: Pick<Received, 'trace'>, gate: SpendGate, spend: SpendRequest): Promise<SpendReservation | undefined> {
  // The closure only when there is a span to run it in: a request without tracing makes none.
  return request.trace ? request.trace.inSpan('router.spend_gate', () => gate.reserve(spend)) : gate.reserve(spend);
}
