/**
 * One call of a fusion run (a panel member, the judge, the writer, a server-tool model turn) through the
 * failover loop, recorded in the trace whatever its outcome. Failures are returned, not thrown, so each
 * stage applies its own policy (drop the member, write without analysis, fail the request); a router bug
 * is re-thrown untouched, as the failover loop does.
 */
import type { RouteProfileConfig } from '../../config/types.js';
import { isRouterError } from '../../core/errors.js';
import type { TokenUsage } from '../../core/token-usage.js';
import { UpstreamTransportError } from '../../upstream/upstream-client.js';
import type { AttemptDeps } from '../chat-attempts.js';
import { runWithFailover, type AttemptSummary, type Candidate, type FailoverDeps, type RoutedMeta } from '../failover.js';
import { ROUTER, usageAttributes } from '../../tracing/span-attributes.js';
import { markError, SpanKind, SpanStatusCode, type SpanScope } from '../../tracing/tracing.js';
import { NO_TOKENS, type FusionCall, type FusionRole, type FusionTrace } from './fusion-trace.js';

export type FusionDeps = FailoverDeps & AttemptDeps;

export interface StageCall<T> {
  label: string;
  role: FusionRole;
  route: RouteProfileConfig;
  accountId: string;
  signal: AbortSignal;
  attempt(candidate: Candidate): Promise<T>;
  /** Tokens of a served value; undefined when they are not known yet (a stream: the server fills them in). */
  usageOf(value: T): TokenUsage | null | undefined;
}

export type StageOutcome<T> = { ok: true; value: T; meta: RoutedMeta; call: FusionCall } | { ok: false; error: unknown; call: FusionCall };

export async function runStageCall<T>(deps: FusionDeps, spec: StageCall<T>, trace: FusionTrace): Promise<StageOutcome<T>> {
  const parent = trace.span;
  if (!parent) return runAndRecord(deps, spec, trace);
  // One span per call (panel member, judge, writer, model turn), the parent of its upstream attempts.
  const scope = parent.request.startSpan(`fusion ${spec.role}`, SpanKind.INTERNAL, { [ROUTER.fusionRole]: spec.role, [ROUTER.fusionCall]: spec.label }, parent);
  try {
    const outcome = await runAndRecord(deps, spec, trace, scope);
    scope.span.setAttributes({ [ROUTER.fusionStatus]: outcome.call.status, [ROUTER.retryCount]: outcome.call.retryCount, ...usageAttributes(outcome.call.usage) });
    if (!outcome.ok) scope.span.setStatus({ code: SpanStatusCode.ERROR });
    return outcome;
  } catch (error) {
    markError(scope.span, error);
    throw error;
  } finally {
    scope.span.end();
  }
}

async function runAndRecord<T>(deps: FusionDeps, spec: StageCall<T>, trace: FusionTrace, scope?: SpanScope): Promise<StageOutcome<T>> {
  const startedAt = deps.clock.now();
  const base = { label: spec.label, role: spec.role };
  try {
    const { value, meta, span } = await runWithFailover(deps, { route: spec.route, accountId: spec.accountId, signal: spec.signal, ...(scope ? { trace: scope } : {}) }, spec.attempt);
    const usage = spec.usageOf(value);
    // A streamed writer's tokens are known at its end: its attempt span ends with the request instead.
    if (span && usage !== undefined) scope?.request.finishServed(span, { usage, model: meta.upstreamModel });
    const call = trace.record({
      ...base,
      provider: meta.providerId,
      model: meta.upstreamModel,
      status: 'ok',
      error: null,
      usage: usage ?? null,
      latencyMs: deps.clock.now() - startedAt,
      retryCount: meta.retryCount,
      attempts: meta.attempts,
      credentialSource: meta.credentialSource,
      used: false,
    });
    return { ok: true, value, meta, call };
  } catch (error) {
    const latencyMs = deps.clock.now() - startedAt;
    if (error instanceof UpstreamTransportError && error.reason === 'aborted') {
      const call = trace.record({ ...base, ...nothingServed(), status: 'aborted', error: 'aborted', latencyMs });
      return { ok: false, error, call };
    }
    if (!isRouterError(error)) throw error;
    const attempts = (error.details.attempts as readonly AttemptSummary[] | undefined) ?? [];
    const last = attempts.filter((attempt) => !attempt.skipped).at(-1);
    const call = trace.record({
      ...base,
      ...nothingServed(),
      provider: last?.provider ?? null,
      model: last?.model ?? null,
      status: 'failed',
      error: error.code === 'all_upstreams_failed' ? (last?.error ?? error.code) : error.code,
      latencyMs,
      retryCount: Number(error.headers['x-router-retry-count'] ?? 0),
      attempts,
    });
    return { ok: false, error, call };
  }
}

function nothingServed(): Omit<FusionCall, 'label' | 'role' | 'status' | 'error' | 'latencyMs'> {
  return { provider: null, model: null, usage: NO_TOKENS, retryCount: 0, attempts: [], credentialSource: null, used: false };
}
