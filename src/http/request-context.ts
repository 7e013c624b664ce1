/** Per-request state the pipeline stages fill in, kept on `event.context.router`. */
import type { H3Event } from 'h3';
import type { PlanConfig, RouteProfileConfig } from '../config/types.js';
import type { QuotaPeriod } from '../core/quota-period.js';
import type { TokenUsage } from '../core/token-usage.js';
import type { AttemptSummary, RoutedMeta } from '../routing/failover.js';
import type { FusionCall, FusionTrace } from '../routing/fusion/index.js';
import type { RateDecision } from '../stores/rate-limiter.js';
import type { SpendReservation } from '../usage/spend-gate.js';
import type { RequestTrace } from '../tracing/tracing.js';

export interface AuthenticatedCaller {
  keyId: string;
  accountId: string;
}

export interface QuotaState {
  limit: number;
  used: number;
  period: Readonly<QuotaPeriod>;
}

export interface RouterRequestContext {
  requestId: string;
  /** When the request arrived (router clock, ms). */
  startedAt: number;
  caller?: AuthenticatedCaller;
  /** The account's plan as read at admission (fresh from the store each request). */
  plan?: PlanConfig;
  quota?: QuotaState;
  rate?: RateDecision;
  /** The parsed JSON body of model traffic. */
  body?: Record<string, unknown>;
  /** The route profile the body's `model` names, when it names a known one. */
  route?: RouteProfileConfig;
  /** Gives back the account's in-flight slot (stages/concurrency.ts); the pipeline calls it when the request has ended. */
  releaseSlot?: () => void;
  /** The monthly count this request took, to give back when no upstream serves it. */
  admitted?: { weight: number; refund(): Promise<void> };
  /** Filled as the request is served, for the request's outcome (request-outcome.ts). */
  served?: RoutedMeta;
  /** Tokens the upstream reported; null when it reported none; unset when no upstream answered. */
  usage?: TokenUsage | null;
  /** When the first byte of the response went to the client (headers of a stream, or the JSON body). */
  firstByteAt?: number;
  /** Why the answer ended as the client saw it (chat finish_reason, Messages stop_reason, Responses status), for the receipt. */
  finishReason?: string;
  /** The contract error code the request ended with, including an in-stream error after the commit point. */
  errorCode?: string;
  /** Model traffic that passed every admission stage (quota and rate limit) and reached its route. */
  passedAdmission?: boolean;
  /** Attempts of a request that failed over without being served (from the all_upstreams_failed error). */
  failedAttempts?: readonly AttemptSummary[];
  failedRetryCount?: number;
  /** The managed-access spend estimate held for this request (usage/spend-gate.ts), settled by its ledger record. */
  spendReservation?: SpendReservation;
  /** Fusion (a fusion profile or the router:fusion tool): every upstream call, and the one the client got (`main`). */
  fusion?: { trace: FusionTrace; main?: FusionCall };
  /** The request's spans, when tracing is on (src/tracing/): ended by the tracing observer. */
  trace?: RequestTrace;
}

declare module 'h3' {
  interface H3EventContext {
    router?: RouterRequestContext;
  }
}

export function requestContext(event: H3Event): RouterRequestContext {
  const ctx = event.context.router;
  if (!ctx) throw new Error('request-id stage must run first');
  return ctx;
}
