/**
 * What a /v1 request has established, fact by fact, and what serving it records.
 *
 * Each request has ONE object (`RequestState`, made when it arrives and kept on
 * `event.context.router`). The admission stages (stages/) set their facts on it and hand it on typed as
 * what they established: `Received` → `Authenticated` → `WithBody` → `Counted` (or `Standing` where
 * nothing is counted) → `InFlight` → `Rated`. A route receives the intersection its stage list produced
 * (`AdmittedRequest` for model traffic), every field present, and the same object as the
 * `ServingRecord` it fills while serving. The pipeline's failure path and the observers read the whole
 * `RequestState`, whose admission fields are unset until a stage has established them.
 */
import type { RequestControls } from '../accounts/account-controls.js';
import type { H3Event } from 'h3';
import type { PlanConfig, RouteProfileConfig } from '../config/types.js';
import type { QuotaPeriod } from '../core/quota-period.js';
import type { TokenUsage } from '../core/token-usage.js';
import type { AttemptSummary, RoutedMeta } from '../routing/failover.js';
import type { FusionCall, FusionTrace } from '../routing/fusion/index.js';
import type { Released } from '../stores/concurrency-limiter.js';
import type { QuotaDecision } from '../stores/quota-ledger.js';
import type { RateDecision } from '../stores/rate-limiter.js';
import type { SpendReservation } from '../usage/spend-gate.js';
import type { RequestTrace } from '../tracing/tracing.js';

export interface AuthenticatedCaller {
  keyId: string;
  accountId: string;
  /** The key's workspace (null: the organization's default) and the person who made it (null: none). */
  workspaceId?: string | null;
  personId?: string | null;
  /** A management key (stages/key-kind.ts admits it to management routes only). */
  management: boolean;
  /** When the key was made (ISO): budgets cached before then are read again (accounts/account-controls.ts). */
  createdAt?: string;
}

export interface QuotaState {
  limit: number;
  /** Lowered by the pipeline when the request's count is refunded, so the limit headers stay exact. */
  used: number;
  period: Readonly<QuotaPeriod>;
}

/** The monthly count a request took, to give back when no upstream serves it. */
export interface AdmittedCount {
  readonly weight: number;
  /** Replaced by the key-limits stage when the key's own monthly count must go back too. */
  refund(): Promise<void>;
}

/** Every request, from its arrival (stages/request-id.ts). */
export interface Received {
  readonly requestId: string;
  /** When the request arrived (router clock, ms). */
  readonly startedAt: number;
  /** The request's spans, when tracing is on (src/tracing/): ended by the tracing observer. */
  trace: RequestTrace | undefined;
}

/** The bearer key resolved to an account (stages/authenticate.ts). */
export interface Authenticated {
  readonly caller: AuthenticatedCaller;
}

/** The parsed JSON body, an object, not yet judged by the endpoint (stages/read-json-body.ts); a preset may still add to it. */
export interface ParsedBody {
  readonly body: Record<string, unknown>;
}

/** The schema-checked JSON body of a request that has one (stages/read-json-body.ts, the check stage). */
export interface WithBody extends ParsedBody {
  /**
   * The route profile the body's `model` names (its alias or its provider preferences applied), or
   * undefined for a name that is none: the route's authorization answers that with a 404.
   */
  route: RouteProfileConfig | undefined;
}

/** The preset a request named (stages/apply-preset.ts); unset when it named none. */
export interface PresetApplied {
  readonly preset: { slug: string; version: number } | undefined;
}

/** The guardrails, budgets and workspace that apply to the request (stages/guardrails.ts). */
export interface Controlled {
  readonly controls: RequestControls;
}

/** The account's plan and monthly quota, read without counting (stages/quota.ts, the peek). */
export interface Standing {
  /** As read from the store this request; undefined only for a plan the configuration no longer has. */
  readonly plan: PlanConfig | undefined;
  readonly quota: QuotaState;
  /**
   * The slot and the window, when the quota ledger decided them in the same step as the count (the
   * Redis gate, one round trip): the in-flight and per-minute stages take these instead of asking.
   */
  readonly decidedWithQuota?: QuotaDecision['alongside'];
}

/** Model traffic: the plan and quota, and the monthly count this request took (stages/quota.ts). */
export interface Counted extends Standing {
  readonly admitted: AdmittedCount;
}

/** One of the account's requests in flight (stages/concurrency.ts); the pipeline gives it back. */
export interface InFlight {
  readonly releaseSlot: () => Released;
}

/** The per-minute window's decision (stages/rate-limit.ts), for the limit headers. */
export interface Rated {
  readonly rate: RateDecision;
}

/** What a model-traffic route receives: everything admission established. */
export type AdmittedRequest = Received & Authenticated & WithBody & Controlled & Counted & InFlight & Rated;
/** The other authenticated /v1 endpoints (the model list, receipts): the caller's standing, nothing counted. */
export type StandingRequest = Received & Authenticated & Standing & Rated;
/** /v1/messages/count_tokens: a body and a route, read against the caller's standing, nothing counted. */
export type CountTokensRequest = StandingRequest & WithBody;

/** What a route records while serving, for the request's outcome (request-outcome.ts) and its observers. */
export interface ServingRecord {
  /** The request it records (in-stream errors name it). */
  readonly requestId: string;
  /** Who served the request (routing's meta), once an upstream committed. */
  served: RoutedMeta | undefined;
  /** Tokens the upstream reported; null when it reported none; undefined when no upstream answered. */
  usage: TokenUsage | null | undefined;
  /** When the first byte of the response went to the client (headers of a stream, or the JSON body). */
  firstByteAt: number | undefined;
  /** Why the answer ended as the client saw it (chat finish_reason, Messages stop_reason, Responses status), for the receipt. */
  finishReason: string | undefined;
  /** The contract error code the request ended with, including an in-stream error after the commit point. */
  errorCode: string | undefined;
  /** The managed-access spend estimate held for this request (usage/spend-gate.ts), settled by its ledger record. */
  spendReservation: SpendReservation | undefined;
  /** Fusion (a fusion profile or the router:fusion tool): every upstream call, and the one the client got (`main`). */
  fusion: { trace: FusionTrace; main?: FusionCall } | undefined;
  /** Answered from the response cache (http/cached-route.ts): the request that paid for the answer and what it cost (nano-USD; null when unknown). */
  cacheHit: { originalRequestId: string; savedNanoUsd: number | null } | undefined;
}

/**
 * The one object of a request. Every field exists from the start (one hidden class for every request);
 * the admission facts are undefined until their stage has run, which only the pipeline's failure path
 * and the outcome see: stages and routes see the typed facts above.
 */
export class RequestState implements Received, ServingRecord, PresetApplied {
  trace: RequestTrace | undefined = undefined;
  caller: AuthenticatedCaller | undefined = undefined;
  body: Record<string, unknown> | undefined = undefined;
  route: RouteProfileConfig | undefined = undefined;
  controls: RequestControls | undefined = undefined;
  plan: PlanConfig | undefined = undefined;
  quota: QuotaState | undefined = undefined;
  decidedWithQuota: QuotaDecision['alongside'] = undefined;
  admitted: AdmittedCount | undefined = undefined;
  releaseSlot: (() => Released) | undefined = undefined;
  rate: RateDecision | undefined = undefined;
  /** Model traffic that passed every admission stage and reached its route. */
  passedAdmission = false;
  /** Zero-completion insurance applied (usage/zero-completion-insurance.ts): refunded, recorded at cost 0. */
  insured = false;
  /** Attempts of a request that failed over without being served (from the all_upstreams_failed error). */
  failedAttempts: readonly AttemptSummary[] | undefined = undefined;
  failedRetryCount: number | undefined = undefined;
  served: RoutedMeta | undefined = undefined;
  usage: TokenUsage | null | undefined = undefined;
  firstByteAt: number | undefined = undefined;
  finishReason: string | undefined = undefined;
  errorCode: string | undefined = undefined;
  spendReservation: SpendReservation | undefined = undefined;
  fusion: { trace: FusionTrace; main?: FusionCall } | undefined = undefined;
  cacheHit: { originalRequestId: string; savedNanoUsd: number | null } | undefined = undefined;
  /** The preset the request named (stages/apply-preset.ts): its slug and the version applied, for the ledger and the receipt. */
  preset: { slug: string; version: number } | undefined = undefined;
  /** The body's `provider` object as the client sent it (the preferences stage takes it off the body): the response cache keys and judges zdr by it. */
  statedProvider: unknown = undefined;

  constructor(
    readonly requestId: string,
    readonly startedAt: number,
  ) {}
}

/** The same request object as a stage is about to establish `Fact` on it: set Fact's fields, then return it. */
export type Establishing<Fact> = { -readonly [Field in keyof Fact]: Fact[Field] };

/** Views the request object as about to hold `Fact` (no copy: the stage sets the fields on this object). */
export function establishing<Fact>(request: object): Establishing<Fact> {
  return request as Establishing<Fact>;
}

declare module 'h3' {
  interface H3EventContext {
    router?: RequestState;
  }
}

export function requestContext(event: H3Event): RequestState {
  const state = event.context.router;
  if (!state) throw new Error('request-id stage must run first');
  return state;
}
