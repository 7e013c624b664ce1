/**
 * Runs a /v1 request's admission (its stage list, stages/admission-lists.ts), then the route, and turns every failure into the contract's error with
 * the quota and rate-limit headers an authenticated caller is owed. A request that no upstream served
 * (an upstream or router failure, or a refusal by the router itself) gives its monthly count back.
 */
import { eventHandler, type EventHandler, type H3Event } from 'h3';
import { describeCrash, describeError } from '../core/describe-error.js';
import { RouterError, isRouterError, type ErrorCode } from '../core/errors.js';
import type { Released } from '../stores/concurrency-limiter.js';
import { StoreUnavailableError } from '../stores/store.js';
import { UpstreamTransportError } from '../upstream/upstream-client.js';
import { shuttingDown } from './drain.js';
import { setLimitHeaders } from './limit-headers.js';
import { HTTP_REQUEST_METHOD, HTTP_ROUTE, ROUTER } from '../tracing/span-attributes.js';
import { endpointOf, OutcomeReporter, type RequestOutcome } from './request-outcome.js';
import type { RouterDeps } from './router-deps.js';
import { establishing, requestContext, type AdmittedCount, type RequestState, type ServingRecord, type Standing } from './request-context.js';
import { sendRouterError } from './send-error.js';
import { peekStanding } from './stages/quota.js';
import type { AdmissionList, Stage } from './stages/stage.js';
import { isInsured } from '../usage/zero-completion-insurance.js';

/**
 * Requests that no upstream served: the monthly count is given back. These are failures that are not
 * the client's doing, and the router's own refusals after admission (the profile, the plan or a field the
 * translation rejects), which are as free as the 400s of the body stage that runs before counting.
 * An upstream's own 4xx (`upstream_rejected_request`) stays counted: an upstream did the work. Except
 * its 404 and 405 (wasNotFound): the host has no such endpoint, model or stored object (an
 * OpenAI-compatible host without `/responses`, a model it does not serve), so nothing was generated and
 * nothing answered the request; the newcomer whose first calls hit a host that lacks the endpoint must
 * not lose quota for the router's choice of host.
 */
const REFUNDED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'rate_limit_exceeded',
  'concurrency_limit_exceeded',
  'key_quota_exceeded',
  'key_rate_limit_exceeded',
  'all_upstreams_failed',
  'no_provider_access',
  'spend_cap_reached',
  'server_tool_not_allowed',
  'store_unavailable',
  'internal_error',
  'unknown_model',
  'plan_upgrade_required',
  'invalid_request',
  'unsupported_parameter',
  'client_closed_request',
  'server_shutting_down',
]);

/**
 * The admission stages that get a span (tracing on): authentication, the monthly quota, and the request
 * rate limits (in flight, per minute, the key's own caps) as one span. Consecutive stages of one name
 * share a span. The others (the edge rule, reading the body, provider preferences, model aliases) are
 * in-memory checks of microseconds: a span each cost more than the stage (bench/README.md, Tracing).
 */
const STAGE_SPANS: Readonly<Record<string, string>> = {
  authenticate: 'router.authenticate',
  quota: 'router.quota',
  quota_peek: 'router.quota',
  in_flight: 'router.rate_limit',
  rate_limit: 'router.rate_limit',
  key_limits: 'router.rate_limit',
};

/**
 * A /v1 route: it receives what its admission established (`request`) and records what serving it did
 * (`serving`); both are the request's one object, seen through the two types.
 */
export type RouteHandler<Admitted> = (event: H3Event, request: Admitted, serving: ServingRecord) => Promise<unknown>;

/** Writes a failure in the endpoint's own error shape (the contract's by default; Anthropic's on /v1/messages). */
export type ErrorSender = typeof sendRouterError;

export function createV1Handler<Admitted>(
  deps: RouterDeps,
  admission: AdmissionList<Admitted>,
  handle: RouteHandler<Admitted>,
  kind: RequestOutcome['kind'] = 'other',
  sendError: ErrorSender = sendRouterError,
): EventHandler {
  const outcomes = new OutcomeReporter(kind, deps.observers, () => deps.clock.now(), deps.logger);
  // The list's types were checked when it was built; here it runs as the array it is, on the one object,
  // and the route gets that object as what the list established (its stages set every field of it).
  const steps = (admission.stages as readonly Stage<RequestState>[]).map((run) => ({ run, span: STAGE_SPANS[run.name] }));
  const serve = handle as unknown as RouteHandler<RequestState>;
  const handleV1 = async (event: H3Event) => {
    const request = requestContext(event);
    const outcome = outcomes.watch(event, request);
    releaseBeforeTheAnswerEnds(event, request, deps);
    try {
      if (deps.drain.draining) throw shuttingDown('refused');
      for (const step of steps) {
        request.trace?.enterStage(step.span);
        // A stage that finished synchronously (the edge rule) costs no await and no microtask turn.
        const pending = step.run(event, request);
        if (pending) await pending;
      }
      request.trace?.leaveStages();
      request.passedAdmission = kind === 'model';
      applyLimitHeaders(event, request, deps);
      const answer = await serve(event, request, request);
      // A whole (JSON) answer is insured here, before h3 writes it, so its limit headers show the refund.
      const insuring = insure(request, deps);
      if (insuring) {
        await insuring;
        applyLimitHeaders(event, request, deps);
      }
      const confirming = releaseSlot(request);
      if (confirming) await confirming; // only with a slow Redis: no extra tick otherwise
      return answer;
    } catch (error) {
      request.trace?.leaveStages(error);
      const answer = await failRequest(event, request, deps, error, sendError);
      const insuring = insure(request, deps);
      if (insuring) await insuring;
      const confirming = releaseSlot(request);
      if (confirming) await confirming;
      return answer;
    } finally {
      // The account's in-flight slot goes back once, on every ending: served, failed, refused after it
      // was taken, the client gone (the stream relay has stopped by then), or cut by the drain.
      releaseSlot(request);
      outcome?.pipelineDone();
    }
  };
  const { tracing } = deps;
  if (!tracing) return eventHandler(handleV1);
  // Every /v1 route runs here, so each request's server span (and so the parent of every stage and
  // upstream attempt) is made in this one place; the tracing observer ends it (server/tracing-observer.ts).
  return eventHandler((event) => {
    const request = requestContext(event);
    const route = endpointOf(event.path);
    request.trace = tracing.startRequest(event.node.req.headers, `${event.method} ${route}`, {
      [HTTP_REQUEST_METHOD]: event.method,
      [HTTP_ROUTE]: route,
      [ROUTER.requestId]: request.requestId,
    });
    return handleV1(event);
  });
}

/** Gives the slot back; a promise when the answer should wait for the store to have it (a slow Redis). */
function releaseSlot(request: RequestState): Released {
  const release = request.releaseSlot;
  request.releaseSlot = undefined;
  return release?.();
}

/**
 * The slot goes back before the answer's last bytes are handed on: a client that sends its next request
 * the moment it has an answer finds the slot free, even on another instance. An answer h3 writes (the
 * route's or an error's) is handed over after the release; a streamed one calls `end` itself, which
 * releases first. With a slow Redis, sending the release first is not enough (it and the next request
 * may reach Redis over two connections in either order), so the store's confirmation comes first
 * (stores/redis/lease-keeper.ts, CONFIRM_RELEASE_FROM_MS); on a fast one nothing waits. A stream that
 * ends insured gets its monthly count back before its last bytes too, for the same reason.
 */
function releaseBeforeTheAnswerEnds(event: H3Event, request: RequestState, deps: RouterDeps): void {
  const res = event.node.res;
  const end = res.end;
  res.end = function (this: typeof res, ...args: Parameters<typeof end>) {
    // Only a response already under way waits here (h3 counts it as handled); the others are answers
    // nobody reads (the client is gone) or were released (and insured) before h3 wrote them.
    if (!res.headersSent) {
      void releaseSlot(request);
      return end.apply(this, args);
    }
    const insuring = insure(request, deps);
    const confirming = releaseSlot(request);
    if (!confirming && !insuring) return end.apply(this, args);
    void Promise.all([confirming, insuring]).then(() => end.apply(this, args));
    return this;
  } as typeof end;
}

/**
 * Zero-completion insurance (usage/zero-completion-insurance.ts): an answer that ended empty or in an
 * error gives its monthly count back, once, and its outcome says so (its ledger record then costs 0).
 * Undefined when there is nothing to do, so most requests cost no promise.
 */
function insure(request: RequestState, deps: RouterDeps): Promise<void> | undefined {
  if (request.insured) return undefined;
  const ending = {
    // A fusion request's panel and judge did real work the caller asked for: not insured (docs/usage.md).
    served: request.served !== undefined && request.fusion === undefined,
    generates: (request.route?.kind ?? 'chat') === 'chat',
    completionTokens: request.usage?.completion,
    finishReason: request.finishReason,
    errorCode: request.errorCode,
  };
  if (!isInsured(ending)) return undefined;
  request.insured = true;
  return request.admitted ? refund(request, request.admitted, deps) : undefined;
}

/** An upstream's 404 or 405 passed on: the host lacks what was asked for, and did no work (refunded). */
const NOT_FOUND_STATUSES: ReadonlySet<number> = new Set([404, 405]);
function wasNotFound(error: RouterError): boolean {
  return error.code === 'upstream_rejected_request' && NOT_FOUND_STATUSES.has(error.status);
}

/** The limit headers of what the request has established so far (none before authentication). */
export function applyLimitHeaders(event: H3Event, request: RequestState, deps: RouterDeps): void {
  const res = event.node.res;
  if (res.headersSent) return;
  setLimitHeaders(res, request, deps.clock.now());
}

/** Answers a failure from what the request had established when it failed (the facts still unset are undefined). */
async function failRequest(event: H3Event, request: RequestState, deps: RouterDeps, error: unknown, sendError: ErrorSender): Promise<string | undefined> {
  const routerError = toRouterError(error, deps, request);
  request.errorCode = routerError.code;
  if (routerError.code === 'all_upstreams_failed') {
    request.failedAttempts = (routerError.details.attempts as RequestOutcome['attempts'] | undefined) ?? [];
    request.failedRetryCount = Number(routerError.headers['x-router-retry-count'] ?? 0);
  }
  if (request.admitted && (REFUNDED.has(routerError.code) || wasNotFound(routerError))) await refund(request, request.admitted, deps);
  if (routerError.code === 'client_closed_request') {
    // Not a failure of the router, and nothing to answer (its outcome is logged at debug level).
    event.node.res.statusCode = routerError.status;
    event.node.res.end();
    return undefined;
  }
  if (event.node.res.headersSent || event.node.res.destroyed) return undefined;
  if (routerError.code !== 'store_unavailable') await fillMissingLimits(request, deps);
  applyLimitHeaders(event, request, deps);
  return sendError(event, routerError, deps.config.server);
}

function toRouterError(error: unknown, deps: RouterDeps, request: RequestState): RouterError {
  if (isRouterError(error)) return error;
  if (error instanceof StoreUnavailableError) {
    deps.logger.error(`[${request.requestId}] store unavailable: ${error.message}`);
    return new RouterError('store_unavailable', 'The router cannot reach its database right now, so it cannot meter this request. Retry shortly.', {
      headers: { 'retry-after': '5' },
    });
  }
  if (error instanceof UpstreamTransportError && error.reason === 'aborted') {
    // Aborted either by the drain deadline or by the client leaving.
    if (deps.drain.deadline.aborted) return shuttingDown('ended');
    return new RouterError('client_closed_request', 'The client closed the connection before an upstream answered.');
  }
  // A router bug, never blamed on a provider (routing/failover.ts re-throws it untouched): one line.
  deps.logger.error(`[${request.requestId}] router failure, answered 500 internal_error: ${describeCrash(error)}`);
  return new RouterError('internal_error', 'The router failed unexpectedly while handling this request. Retry; if it persists, contact support with the X-Request-Id.');
}

/** Gives the request's monthly count back, once: the request is no longer counted (its outcome says so). */
async function refund(request: RequestState, admitted: AdmittedCount, deps: RouterDeps): Promise<void> {
  request.admitted = undefined;
  try {
    await admitted.refund();
    if (request.quota) request.quota.used = Math.max(0, request.quota.used - admitted.weight);
  } catch (error) {
    deps.logger.warn(`[${request.requestId}] quota refund failed: ${describeError(error)}`);
  }
}

/** Errors raised before the quota or rate-limit stage still report the caller's exact limits. */
async function fillMissingLimits(request: RequestState, deps: RouterDeps): Promise<void> {
  const { caller } = request;
  if (!caller) return;
  try {
    if (!request.quota) await peekStanding(deps, caller.accountId, establishing<Standing>(request));
    if (!request.rate && request.plan) request.rate = await deps.rateLimiter.peek(caller.accountId, request.plan.requestsPerMinute, deps.clock.now());
  } catch {
    // The error being reported matters more than its headers.
  }
}
