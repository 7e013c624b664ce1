/**
 * Ends each request's server span once its outcome is known (the response closed and the pipeline is
 * done, so a refund, an in-band stream error or a client that left is in it), with the route, status,
 * who asked (opaque account and key ids), the limit decision and the retries; served upstream attempts
 * still open end here with the request's usage.
 */
import { SpanStatusCode } from '../../tracing/tracing.js';
import { ERROR_TYPE, GEN_AI_RESPONSE_MODEL, HTTP_RESPONSE_STATUS_CODE, ROUTER } from '../../tracing/span-attributes.js';
import type { RequestObserver, RequestOutcome } from '../../http/request-outcome.js';

/** Refusals by a limit: the decision a server span names instead of `admitted`. */
const LIMIT_CODES: ReadonlySet<string> = new Set([
  'monthly_quota_exceeded',
  'rate_limit_exceeded',
  'concurrency_limit_exceeded',
  'key_quota_exceeded',
  'key_rate_limit_exceeded',
  'spend_cap_reached',
]);

export function createTracingObserver(): RequestObserver {
  return {
    onRequestFinished(outcome) {
      const trace = outcome.trace;
      if (!trace) return;
      trace.finishAll({ usage: outcome.usage, ...(outcome.servedBy ? { model: outcome.servedBy.upstreamModel } : {}) });
      const span = trace.server.span;
      span.setAttributes({
        [HTTP_RESPONSE_STATUS_CODE]: outcome.status,
        [ROUTER.retryCount]: outcome.retryCount,
        [ROUTER.clientClosed]: outcome.clientClosed,
        ...(outcome.accountId ? { [ROUTER.accountId]: outcome.accountId } : {}),
        ...(outcome.keyId ? { [ROUTER.keyId]: outcome.keyId } : {}),
        ...(outcome.routeId ? { [ROUTER.routeProfile]: outcome.routeId } : {}),
        ...(outcome.kind === 'model' ? { [ROUTER.limitDecision]: limitDecision(outcome), [ROUTER.counted]: outcome.counted } : {}),
        ...(outcome.servedBy ? { [ROUTER.servedBy]: outcome.servedBy.providerId, [GEN_AI_RESPONSE_MODEL]: outcome.servedBy.upstreamModel } : {}),
        ...(outcome.errorCode ? { [ROUTER.errorCode]: outcome.errorCode } : {}),
      });
      // The HTTP conventions: a server span is an error for 5xx only (a 4xx is the client's doing).
      if (outcome.status >= 500) span.setAttributes({ [ERROR_TYPE]: outcome.errorCode ?? String(outcome.status) });
      if (outcome.status >= 500 || (outcome.errorCode !== null && outcome.status < 400)) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/** `admitted`, the limit that refused it, or `not_reached` (refused earlier: authentication, the body). */
export function limitDecision(outcome: Pick<RequestOutcome, 'admitted' | 'errorCode'>): string {
  if (outcome.admitted) return 'admitted';
  if (outcome.errorCode !== null && LIMIT_CODES.has(outcome.errorCode)) return outcome.errorCode;
  return 'not_reached';
}
