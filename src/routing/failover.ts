/**
 * The failover loop: try a route profile's candidates in order until one serves the request, within
 * the route's retry budget, skipping providers the account has no credential for, providers whose
 * circuit is open and the account's own keys whose circuit is open. An attempt "serves" the request
 * once it returns: for streams that is the commit point (first output ready); nothing after it is retried.
 *
 * Whose fault a failure is decides which circuit it moves: a 401, 402, 403 or 429 is the key's
 * (credential-health.ts: the account's own key, or the operator's managed key), never the provider's, so
 * one key cannot take a provider away from the accounts that use others, nor show it degraded on
 * /status; 5xx and transport failures are the provider's (provider-health.ts); a 404 (the host lacks the
 * model or endpoint) is neither's, and is tried elsewhere all the same (failover-policy.ts).
 */
import type { ProviderConfig, RouteProfileConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { RouterError } from '../core/errors.js';
import { UpstreamStreamError, type UpstreamFailure } from '../upstream/upstream-failure.js';
import { UpstreamTransportError } from '../upstream/upstream-client.js';
import { candidateOrder } from './candidate-order.js';
import type { MeasuredOrder } from './measured-order.js';
import type { StickyRouting } from './sticky-routing.js';
import { MANAGED_OWNER, isCredentialVerdict, type CredentialHealth } from './credential-health.js';
import { isMissingAtHost, shouldFailOver } from './failover-policy.js';
import type { ProviderHealth } from './provider-health.js';
import type { Span, SpanScope } from '../tracing/tracing.js';
import { attemptServed, attemptThrew, recordSkippedAttempt, startAttemptSpan } from './attempt-span.js';
import { upstreamRefusal } from './upstream-refusal.js';
import { AttemptFailed, CandidateUnfit, oneWord, type Candidate, type CredentialSource } from './attempt.js';

/** Defined in attempt.ts so attempt-span.ts needs no import of this loop; named from here as before. */
export { AttemptFailed, CandidateUnfit, oneWord, type Candidate, type CredentialSource };

export interface AttemptSummary {
  provider: string;
  model: string;
  /** HTTP status the provider answered with; null when there was no response. */
  status: number | null;
  /** What went wrong in one word (an error code); null for the attempt that served the request. */
  error: string | null;
  /** Time from sending to the outcome (to the commit point for streams); 0 for a skipped candidate. */
  latencyMs: number;
  /**
   * Not tried (`error` says why): the provider's circuit was open (`circuit_open`), or the circuit of the
   * key for it (`credential_rejected`, `credential_throttled`, `credential_exhausted`). Absent for attempts made.
   */
  skipped?: true;
}

export interface ResolvedCredential {
  value: string;
  source: CredentialSource;
}

/** An account's credential for a provider (BYOK, or managed when allowed), or undefined. */
export type CredentialLookup = (providerId: string) => ResolvedCredential | undefined;

export interface RoutedMeta {
  providerId: string;
  upstreamModel: string;
  /** Attempts made after the first. */
  retryCount: number;
  credentialSource: CredentialSource;
  /** Every candidate tried or skipped, in order; the last one served the request. */
  attempts: readonly AttemptSummary[];
}

export interface FailoverDeps {
  providers: ReadonlyMap<string, ProviderConfig>;
  /** Ranks the candidates of a route with `order: measured` (absent: such routes keep their tier order). */
  measuredOrder?: MeasuredOrder;
  /** Keeps a cached prompt prefix on the provider that holds it (absent: no stickiness). */
  sticky?: StickyRouting;
  health: ProviderHealth;
  /** The circuits of keys (accounts' own and the operator's managed ones), apart from the providers'. */
  credentialHealth: CredentialHealth;
  clock: Clock;
  random: () => number;
  /** The account's credentials, read once per request (one await, however many candidates the route has). */
  credentialsOf(accountId: string): Promise<CredentialLookup>;
}

export interface FailoverCall {
  route: RouteProfileConfig;
  accountId: string;
  signal: AbortSignal;
  /** The request's cached prefix (sticky-routing.ts): its provider is tried first. */
  stickyKey?: string;
  /** The span the attempts' spans go under (the request's, or a fusion call's); absent when tracing is off. */
  trace?: SpanScope;
}

export async function runWithFailover<T>(
  deps: FailoverDeps,
  call: FailoverCall,
  attempt: (candidate: Candidate) => Promise<T>,
): Promise<{ value: T; meta: RoutedMeta; span?: Span }> {
  const { candidates, withoutCredential } = await usableCandidates(deps, call);
  const maxAttempts = 1 + call.route.retryBudget;
  const attempts: AttemptSummary[] = [];
  const overBudget: string[] = [];
  let refusal: RouterError | undefined;
  /** What each attempt made failed with, for the verdict when all of them refused (upstream-refusal.ts). */
  const failures: UpstreamFailure[] = [];
  /** How long each candidate skipped as throttled stays so, in seconds: the soonest is the client's Retry-After. */
  const throttledFor: number[] = [];
  let sent = 0;
  let everyAttemptTimedOut = true;
  for (const candidate of candidates) {
    const { provider, target } = candidate;
    if (sent >= maxAttempts) {
      overBudget.push(provider.id);
      continue;
    }
    const skip = skipReason(deps, call.accountId, candidate);
    if (skip) {
      if (skip === 'credential_throttled') throttledFor.push(deps.credentialHealth.skippedForSeconds(ownerOf(call.accountId, candidate), provider.id, candidate.credential));
      attempts.push({ provider: provider.id, model: target.model, status: null, error: skip, latencyMs: 0, skipped: true });
      if (call.trace) recordSkippedAttempt(call.trace, candidate, attempts.length, skip);
      continue;
    }
    const startedAt = deps.clock.now();
    const scope = call.trace ? startAttemptSpan(call.trace, candidate, attempts.length + 1) : undefined;
    try {
      const value = await attempt(scope ? { ...candidate, span: scope } : candidate);
      const latencyMs = deps.clock.now() - startedAt;
      accepted(deps, call.accountId, candidate, latencyMs);
      if (call.stickyKey !== undefined) deps.sticky?.remember(call.stickyKey, provider.id);
      attempts.push({ provider: provider.id, model: target.model, status: 200, error: null, latencyMs });
      if (scope) attemptServed(scope);
      return {
        value,
        meta: { providerId: provider.id, upstreamModel: target.model, retryCount: sent, credentialSource: candidate.credentialSource, attempts },
        ...(scope ? { span: scope.span } : {}),
      };
    } catch (error) {
      if (scope) attemptThrew(scope.span, error, call.signal);
      if (error instanceof CandidateUnfit && !call.signal.aborted) {
        sent++;
        accepted(deps, call.accountId, candidate, deps.clock.now() - startedAt);
        attempts.push({ provider: provider.id, model: target.model, status: 200, error: error.code, latencyMs: deps.clock.now() - startedAt });
        everyAttemptTimedOut = false;
        continue;
      }
      const failed = asAttemptFailed(error, call.signal, () => noVerdict(deps, call.accountId, candidate));
      if (failed instanceof RouterError) {
        // This provider's adapter cannot honour the request (nothing was sent); another candidate may.
        refusal ??= failed;
        continue;
      }
      sent++;
      const { failure } = failed;
      if (!failed.transport && !shouldFailOver(failure.status)) {
        // The provider answered, and the fault is the request's: it is healthy, and no other candidate would do better.
        accepted(deps, call.accountId, candidate, deps.clock.now() - startedAt);
        throw clientFault(failure, sent - 1);
      }
      if (!failed.transport && isMissingAtHost(failure.status)) accepted(deps, call.accountId, candidate, deps.clock.now() - startedAt);
      else failedAt(deps, call.accountId, candidate, failed);
      failures.push(failure);
      everyAttemptTimedOut &&= failure.status === 504;
      attempts.push({
        provider: provider.id,
        model: target.model,
        status: failed.transport ? null : failure.status,
        error: oneWord(failure.code ?? failure.type),
        latencyMs: deps.clock.now() - startedAt,
      });
    }
  }
  if (refusal && sent === 0) throw refusal;
  // Every host tried lacks the model or endpoint: its 404, as a single candidate's always was.
  const missing = failures.at(-1);
  if (missing && failures.length === sent && failures.every((failure) => isMissingAtHost(failure.status))) throw clientFault(missing, sent - 1);
  const failed = allFailed(call.route.id, attempts, { withoutCredential, overBudget }, Math.max(0, sent - 1), sent > 0 && everyAttemptTimedOut);
  throw upstreamRefusal(call.route.id, failed, failures, throttledFor) ?? failed;
}

/** Whose key a candidate carries: the account's own, or the operator's managed key (one owner for all). */
function ownerOf(accountId: string, candidate: Candidate): string {
  return candidate.credentialSource === 'byok' ? accountId : MANAGED_OWNER;
}

/**
 * Why not to send to this candidate now: its provider's circuit, then the circuit of its key. Claims a
 * half-open probe slot where it lets the request through.
 */
function skipReason(deps: FailoverDeps, accountId: string, candidate: Candidate): AttemptSummary['error'] {
  const providerId = candidate.provider.id;
  if (!deps.health.tryAcquire(providerId)) return 'circuit_open';
  const skip = deps.credentialHealth.skipReason(ownerOf(accountId, candidate), providerId, candidate.credential);
  if (skip === undefined) return null;
  deps.health.release(providerId);
  return skip;
}

/** The provider answered and took the credential (a success, an unfit answer, the request's own 4xx). */
function accepted(deps: FailoverDeps, accountId: string, candidate: Candidate, latencyMs: number): void {
  deps.health.recordSuccess(candidate.provider.id, latencyMs);
  deps.credentialHealth.recordSuccess(ownerOf(accountId, candidate), candidate.provider.id, candidate.credential);
}

/** Nothing was learned (the client left, or the router refused or failed): probe slots are released. */
function noVerdict(deps: FailoverDeps, accountId: string, candidate: Candidate): void {
  deps.health.release(candidate.provider.id);
  deps.credentialHealth.release(ownerOf(accountId, candidate), candidate.provider.id, candidate.credential);
}

/** A failover trigger: the key's fault when the provider judged the key, else the provider's. */
function failedAt(deps: FailoverDeps, accountId: string, candidate: Candidate, failed: AttemptFailed): void {
  const providerId = candidate.provider.id;
  const owner = ownerOf(accountId, candidate);
  if (!failed.transport && isCredentialVerdict(failed.failure.status)) {
    deps.health.release(providerId);
    deps.credentialHealth.recordFailure(owner, providerId, candidate.credential, failed.failure);
    return;
  }
  deps.health.recordFailure(providerId);
  deps.credentialHealth.release(owner, providerId, candidate.credential);
}

async function usableCandidates(deps: FailoverDeps, call: FailoverCall): Promise<{ candidates: Candidate[]; withoutCredential: string[] }> {
  const candidates: Candidate[] = [];
  // Made only when a provider lacks a credential: the usual request has one for every candidate.
  let withoutCredential: Set<string> | undefined;
  const inTierOrder = candidateOrder(call.route, deps.random);
  const ordered = call.route.order === 'measured' && deps.measuredOrder ? deps.measuredOrder.rank(call.route, inTierOrder) : inTierOrder;
  const credentialFor = await deps.credentialsOf(call.accountId);
  for (const target of ordered) {
    const provider = deps.providers.get(target.provider);
    if (!provider) continue;
    const credential = credentialFor(provider.id);
    if (credential === undefined) (withoutCredential ??= new Set()).add(provider.id);
    else candidates.push({ target, provider, credential: credential.value, credentialSource: credential.source, accountId: call.accountId });
  }
  // The cache's provider goes first, unless the caller ranked the providers itself: its order wins.
  if (call.stickyKey !== undefined && deps.sticky && !call.route.callerOrdered) candidates.splice(0, candidates.length, ...deps.sticky.prefer(call.stickyKey, candidates));
  if (candidates.length === 0) {
    throw new RouterError(
      'no_provider_access',
      `No provider credential is available to this account for ${call.route.id}. Add your own key for one of its providers (${[...new Set(call.route.tiers.flat().map((t) => t.provider))].join(', ')}) on your account page.`,
    );
  }
  const lacking = withoutCredential ? [...withoutCredential].filter((id) => !candidates.some((candidate) => candidate.provider.id === id)) : [];
  return { candidates, withoutCredential: lacking };
}

/**
 * Classify what an attempt threw. Only what the upstream did (an HTTP status, a transport failure, bytes
 * its parser rejected) is a failure to weigh against the provider's health. An adapter's refusal of a
 * field is the request's fault. Anything else is the router's own fault (a translator or serializer
 * bug): re-thrown, with no verdict on the provider, and no other candidate tried, since the same code
 * would fail again; the pipeline answers it with 500 internal_error and logs it once.
 */
function asAttemptFailed(error: unknown, signal: AbortSignal, releaseProbe: () => void): AttemptFailed | RouterError {
  if (signal.aborted) {
    releaseProbe();
    throw error instanceof UpstreamTransportError ? error : new UpstreamTransportError('aborted', { cause: error });
  }
  if (error instanceof AttemptFailed) return error;
  if (error instanceof UpstreamStreamError) return new AttemptFailed(error.failure);
  if (error instanceof UpstreamTransportError) return AttemptFailed.fromTransport(error);
  releaseProbe();
  if (error instanceof RouterError && error.status < 500) return error;
  throw error;
}

/**
 * An upstream's 4xx that is the request's fault, passed through with its status, type and code; a
 * provider that gave no code (Anthropic's and Gemini's 400s, a bare proxy page) gets the router's own,
 * so `code` is never null and always matches the `docsUrl` anchor's entry.
 */
function clientFault(failure: UpstreamFailure, retryCount: number): RouterError {
  return new RouterError('upstream_rejected_request', failure.message, {
    status: failure.status,
    param: failure.param ?? null,
    wire: { type: failure.type, code: failure.code ?? 'upstream_rejected_request' },
    headers: { 'x-router-retry-count': String(retryCount) },
  });
}

interface NotTried {
  /** Providers of the route the account has no credential for. */
  withoutCredential: readonly string[];
  /** Candidates left when the retry budget was spent. */
  overBudget: readonly string[];
}

function allFailed(routeId: string, attempts: AttemptSummary[], notTried: NotTried, retryCount: number, allTimedOut: boolean): RouterError {
  const skipped = [
    ...attempts.filter((attempt) => attempt.skipped).map((attempt) => ({ provider: attempt.provider, reason: attempt.error ?? 'circuit_open' })),
    ...notTried.withoutCredential.map((provider) => ({ provider, reason: 'no_credential' })),
    ...[...new Set(notTried.overBudget)].map((provider) => ({ provider, reason: 'retry_budget' })),
  ];
  return new RouterError('all_upstreams_failed', failedRouteMessage(routeId, attempts, skipped), {
    status: allTimedOut ? 504 : 502,
    details: { attempts, skipped },
    headers: { 'x-router-retry-count': String(retryCount) },
  });
}

const SKIP_REASON: Readonly<Record<string, string>> = {
  circuit_open: 'circuit open after repeated failures',
  credential_rejected: 'the provider rejected your key for it',
  credential_throttled: 'the provider is rate-limiting the key for it',
  credential_exhausted: "the key's quota or credit with it is used up",
  no_credential: 'no key for it on this account',
  retry_budget: 'retry budget used up',
};

/**
 * Something true and actionable: what was tried and how each failed (one word), what was skipped and
 * why, and "retry" only when retrying can help (a transient failure or an open circuit). Failures only
 * the account can fix (a rejected provider key, an exhausted provider balance) say so instead.
 */
function failedRouteMessage(routeId: string, attempts: AttemptSummary[], skipped: Array<{ provider: string; reason: string }>): string {
  const tried = attempts.filter((attempt) => !attempt.skipped);
  const parts = [`No upstream could serve ${routeId}.`];
  if (tried.length > 0) parts.push(`Tried: ${tried.map((a) => `${a.provider} (${a.status === null ? a.error : `${a.status} ${a.error}`})`).join(', ')}.`);
  if (skipped.length > 0) parts.push(`Skipped: ${skipped.map((s) => `${s.provider} (${SKIP_REASON[s.reason]})`).join(', ')}.`);
  const transient = tried.some(isTransient) || skipped.some((s) => s.reason === 'circuit_open' || s.reason === 'credential_throttled');
  if (transient) {
    parts.push('Retry in a few seconds; if it persists, see the status page.');
  } else if (tried.some((a) => a.status === 401 || a.status === 403) || skipped.some((s) => s.reason === 'credential_rejected')) {
    parts.push('Retrying will not help: the provider rejected the key, so check the provider keys on your account page.');
  } else if (tried.some((a) => a.error === 'insufficient_quota') || skipped.some((s) => s.reason === 'credential_exhausted')) {
    parts.push("Retrying will not help: the provider account's quota or credit is used up.");
  }
  return parts.join(' ');
}

function isTransient(attempt: AttemptSummary): boolean {
  if (attempt.status === null) return true;
  if (attempt.error === 'insufficient_quota') return false;
  return attempt.status === 429 || attempt.status >= 500;
}
