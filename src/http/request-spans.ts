/**
 * What a route passes on of its request's trace (tracing on; src/tracing/): the server span as the parent
 * of the failover loop's attempt spans, and the spend gate's admission span. Nothing when tracing is off.
 */
import type { SpanScope } from '../tracing/tracing.js';
import type { Received } from './request-context.js';

/** A FailoverCall's `trace`: its attempts' spans go under the request's server span (none when tracing is off). */
export function attemptsParent(request: Pick<Received, 'trace'>): SpanScope | undefined {
  return request.trace?.server;
}

/** The spend gate's reservation in its own span (`router.spend_gate`), a refusal marked with its code. */
export function inSpendGateSpan<T>(request: Pick<Received, 'trace'>, reserve: () => Promise<T>): Promise<T> {
  return request.trace ? request.trace.inSpan('router.spend_gate', reserve) : reserve();
}
