/**
 * What became of one /v1 request, handed once to every observer (operator logs, the usage ledger,
 * metrics) when its response has finished or its client has gone. Observers only read: they never
 * change the response, never throw into the pipeline, and never see the prompt, the key or provider bodies.
 */
import type { ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import type { ConsolaInstance } from 'consola';
import { describeError } from '../core/describe-error.js';
import type { TokenUsage } from '../core/token-usage.js';
import type { AttemptSummary, CredentialSource } from '../routing/failover.js';
import type { FusionCall } from '../routing/fusion/index.js';
import type { SpendReservation } from '../usage/spend-gate.js';
import type { RequestTrace } from '../tracing/tracing.js';
import type { RequestState } from './request-context.js';

export interface RequestOutcome {
  requestId: string;
  /** `model` for chat completions, Responses, Messages, embeddings and rerank; `other` for the model list and unknown endpoints. */
  kind: 'model' | 'other';
  /**
   * The endpoint as a template (`/v1/chat/completions`, `/v1/models/{id}`, `/v1/*` for any unknown path):
   * never the raw path, which is client text (a key pasted into a URL) and unbounded as a metric label.
   */
  endpoint: string;
  startedAt: number;
  finishedAt: number;
  /** Set once authentication succeeded. */
  accountId: string | null;
  keyId: string | null;
  /** The workspace the request counted in and the person who made its key (null: unknown or none). */
  workspaceId: string | null;
  personId: string | null;
  /** The route profile the body named, when it named a known one. */
  routeId: string | null;
  /** The request took a monthly quota unit and kept it (it was admitted and not refunded). */
  counted: boolean;
  /** It passed admission (quota and rate limit), whether or not it was refunded later. */
  admitted: boolean;
  /** Zero-completion insurance: the answer ended empty or in an error, so it is refunded and costs nothing. */
  insured: boolean;
  quotaWeight: number;
  status: number;
  /** The contract error code, when the request failed (also after a stream was committed). */
  errorCode: string | null;
  servedBy: { providerId: string; upstreamModel: string; credentialSource: CredentialSource } | null;
  retryCount: number;
  attempts: readonly AttemptSummary[];
  /** null: no upstream reported usage (recorded as unknown, never guessed). */
  usage: TokenUsage | null;
  firstByteMs: number | null;
  totalMs: number;
  /** Why the answer ended (finish_reason, stop_reason or the Response's status); null when none was seen. */
  finishReason: string | null;
  /** The client went away before the response finished. */
  clientClosed: boolean;
  /** The managed-access spend estimate held for the request, which its ledger record settles. */
  spendReservation: SpendReservation | null;
  /** Fusion: the request's other upstream calls (panel, judge, model turns), each its own ledger record. */
  extraCalls?: readonly FusionCall[];
  /** Answered from the response cache: the request that paid for the answer, and the spend the hit saved (null: unknown). */
  cacheHit?: { originalRequestId: string; savedNanoUsd: number | null };
  /** The preset the request named and the version applied (stages/apply-preset.ts). */
  preset?: { slug: string; version: number };
  /** The request's spans when tracing is on: the tracing observer ends them; others may read `traceId` only. */
  trace?: RequestTrace;
}

export interface RequestObserver {
  onRequestFinished(outcome: RequestOutcome): void;
}

/**
 * Hands the outcome of each request of one /v1 route to the observers: made once per route
 * (pipeline.ts), so a request costs one small record and no closure.
 */
export class OutcomeReporter {
  constructor(
    readonly kind: RequestOutcome['kind'],
    private readonly observers: readonly RequestObserver[],
    readonly now: () => number,
    private readonly logger: ConsolaInstance,
  ) {}

  /**
   * Call once per request, as early as its object exists. It is reported once the response has closed
   * AND the pipeline has finished with it (`PendingOutcome.pipelineDone`), so a refund or an error code
   * decided after a client left is in the outcome. Undefined when nobody observes.
   */
  watch(event: H3Event, request: RequestState): PendingOutcome | undefined {
    if (this.observers.length === 0) return undefined;
    const pending = new PendingOutcome(event, request, this);
    const res = event.node.res as WatchedResponse;
    res[PENDING_OUTCOME] = pending;
    // One listener function for every response (it finds its request on the response), and `on`
    // rather than `once`, whose wrapper is made per call: a response closes once.
    res.on('close', onResponseClose);
    return pending;
  }

  reportIfDone(pending: PendingOutcome): void {
    if (pending.closedAt === undefined || !pending.handled) return;
    const { event, request } = pending;
    const outcome = buildOutcome(event, request, this.kind, pending.closedAt, pending.clientClosed);
    for (const observer of this.observers) {
      try {
        observer.onRequestFinished(outcome);
      } catch (error) {
        this.logger.warn(`[${request.requestId}] request observer failed: ${describeError(error)}`);
      }
    }
  }
}

/** One request waiting for both its response's close and the pipeline's end. */
export class PendingOutcome {
  closedAt: number | undefined = undefined;
  clientClosed = false;
  handled = false;

  constructor(
    readonly event: H3Event,
    readonly request: RequestState,
    readonly reporter: OutcomeReporter,
  ) {}

  /** The pipeline has finished with the request (served, failed, refunded). */
  pipelineDone(): void {
    this.handled = true;
    this.reporter.reportIfDone(this);
  }
}

const PENDING_OUTCOME = Symbol('router.pendingOutcome');
type WatchedResponse = ServerResponse & { [PENDING_OUTCOME]?: PendingOutcome };

function onResponseClose(this: WatchedResponse): void {
  const pending = this[PENDING_OUTCOME];
  if (!pending || pending.closedAt !== undefined) return;
  pending.closedAt = pending.reporter.now();
  pending.clientClosed = !this.writableFinished;
  pending.reporter.reportIfDone(pending);
}

/** What the request established and what serving it recorded, as the observers read it. */
function buildOutcome(event: H3Event, request: RequestState, kind: RequestOutcome['kind'], finishedAt: number, clientClosed: boolean): RequestOutcome {
  const served = request.served;
  return {
    requestId: request.requestId,
    kind,
    endpoint: endpointOf(event.path),
    startedAt: request.startedAt,
    finishedAt,
    accountId: request.caller?.accountId ?? null,
    keyId: request.caller?.keyId ?? null,
    workspaceId: request.controls?.workspaceId ?? request.caller?.workspaceId ?? null,
    personId: request.caller?.personId ?? null,
    routeId: request.route?.id ?? null,
    counted: request.admitted !== undefined,
    admitted: request.passedAdmission,
    insured: request.insured,
    quotaWeight: request.route?.quotaWeight ?? 1,
    // A client that left before any answer gets nothing; 499 records that (as nginx does).
    status: clientClosed && !event.node.res.headersSent ? 499 : event.node.res.statusCode,
    errorCode: request.errorCode ?? null,
    servedBy: served ? { providerId: served.providerId, upstreamModel: served.upstreamModel, credentialSource: served.credentialSource } : null,
    retryCount: served?.retryCount ?? request.failedRetryCount ?? 0,
    attempts: served?.attempts ?? request.failedAttempts ?? [],
    usage: request.usage ?? null,
    firstByteMs: request.firstByteAt === undefined ? null : request.firstByteAt - request.startedAt,
    totalMs: finishedAt - request.startedAt,
    finishReason: request.finishReason ?? null,
    clientClosed,
    spendReservation: request.spendReservation ?? null,
    ...(request.fusion ? { extraCalls: request.fusion.trace.calls.filter((call) => call !== request.fusion?.main) } : {}),
    ...(request.trace ? { trace: request.trace } : {}),
    ...(request.cacheHit ? { cacheHit: request.cacheHit } : {}),
    ...(request.preset ? { preset: request.preset } : {}),
  };
}

const ENDPOINTS = new Set(['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens', '/v1/embeddings', '/v1/rerank', '/v1/models', '/v1/generation']);

/** The endpoint as a template (never the raw path, which is client text). */
export function endpointOf(path: string): string {
  // Nearly every request names its endpoint exactly: one look-up, no copy of the path.
  if (ENDPOINTS.has(path)) return path;
  const bare = (path.split('?')[0] ?? path).replace(/\/+$/, '');
  if (ENDPOINTS.has(bare)) return bare;
  return bare.startsWith('/v1/models/') ? '/v1/models/{id}' : '/v1/*';
}
