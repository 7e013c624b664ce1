/**
 * A fusion run: the panel in parallel, then the judge's analysis (analyze-then-write), then the writer,
 * whose answer is the client's. Nothing from the panel or the judge is returned: they feed the writer's
 * request only. Streams return at the writer's commit point, like any routed stream.
 */
import type { FusionConfig, FusionStageConfig, RouteProfileConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../../formats/openai-chat.js';
import { completeChatAttempt, streamChatAttempt, type CommittedStream } from '../chat-attempts.js';
import type { Candidate, RoutedMeta } from '../failover.js';
import type { FusionAnalysis } from './fusion-analysis.js';
import { writerRequest } from './fusion-prompts.js';
import type { FusionCall, FusionTrace } from './fusion-trace.js';
import { runJudge } from './run-judge.js';
import { runPanel, type PanelRun } from './run-panel.js';
import { runStageCall, type FusionDeps } from './run-stage-call.js';
import { stageRoute } from './stage-route.js';

export interface FusionRun {
  /** The fusion route profile (it carries `fusion`). */
  route: RouteProfileConfig & { fusion: FusionConfig };
  accountId: string;
  signal: AbortSignal;
  /** Prefix of the call labels (`tool:1:` inside a server-tool run; empty otherwise). */
  labelPrefix?: string;
}

export interface FusionResult<T> {
  value: T;
  /** The writer's routing, with `retryCount` summed over every call of the request. */
  meta: RoutedMeta;
  /** The call whose answer the client got (the request's `main` ledger record). */
  main: FusionCall;
}

export function completeFusion(deps: FusionDeps, run: FusionRun, chat: ChatRequest, trace: FusionTrace): Promise<FusionResult<ChatCompletion>> {
  return runFusion(deps, run, chat, trace, false, (candidate, request) => completeChatAttempt(deps, candidate, request, run.signal), (c) => tokenUsageFromChat(c.usage));
}

/** The writer's tokens arrive at the end of its stream: its call's usage is left for the server to fill in. */
export function streamFusion(deps: FusionDeps, run: FusionRun, chat: ChatRequest, trace: FusionTrace): Promise<FusionResult<CommittedStream<ChatCompletionChunk>>> {
  return runFusion(deps, run, chat, trace, true, (candidate, request) => streamChatAttempt(deps, candidate, request, run.signal), () => undefined);
}

async function runFusion<T>(
  deps: FusionDeps,
  run: FusionRun,
  chat: ChatRequest,
  trace: FusionTrace,
  stream: boolean,
  write: (candidate: Candidate, request: ChatRequest) => Promise<T>,
  usageOf: (value: T) => ReturnType<typeof tokenUsageFromChat> | undefined,
): Promise<FusionResult<T>> {
  const { fusion } = run.route;
  const panelRun: PanelRun = { route: run.route, fusion, accountId: run.accountId, signal: run.signal, labelPrefix: run.labelPrefix ?? '' };
  const answers = await runPanel(deps, panelRun, chat, trace);
  if (answers.length < fusion.minAnswers) throw withRetryCount(tooFewAnswers(run.route.id, fusion.minAnswers, trace), trace);
  for (const answer of answers) answer.call.used = true;
  let analysis: FusionAnalysis | undefined;
  if (fusion.mode === 'analyze-then-write') {
    analysis = await runJudge(deps, panelRun, chat, answers, trace);
    trace.analysis = analysis ? 'used' : 'unavailable';
  }
  const request = writerRequest(chat, answers.map((answer) => answer.text), analysis, stream);
  const label = `${panelRun.labelPrefix}writer`;
  const outcome = await runStageCall(
    deps,
    {
      label,
      role: 'writer',
      route: stageRoute(run.route, label, writerStage(run.route)),
      accountId: run.accountId,
      signal: run.signal,
      attempt: (candidate) => write(candidate, request),
      usageOf,
    },
    trace,
  );
  if (!outcome.ok) throw outcome.error instanceof RouterError ? withRetryCount(outcome.error, trace) : outcome.error;
  outcome.call.used = true;
  return { value: outcome.value, meta: { ...outcome.meta, retryCount: trace.retryCount }, main: outcome.call };
}

/** judge-writes: the judge's tiers write the answer; otherwise the writer's, or the route's own tiers. */
function writerStage(route: RouteProfileConfig & { fusion: FusionConfig }): FusionStageConfig {
  if (route.fusion.mode === 'judge-writes') return route.fusion.judge;
  return route.fusion.writer ?? { tiers: route.tiers };
}

/** X-Router-Retry-Count of a failed run: every retry of every call. */
export function withRetryCount(error: RouterError, trace: FusionTrace): RouterError {
  (error.headers as Record<string, string>)['x-router-retry-count'] = String(trace.retryCount);
  return error;
}

function tooFewAnswers(routeId: string, needed: number, trace: FusionTrace): RouterError {
  const panel = trace.calls.filter((call) => call.role === 'panel');
  const members = panel.map((call) => ({ call: call.label, provider: call.provider, model: call.model, status: call.status, error: call.error }));
  const reasons = panel
    .filter((call) => call.status !== 'ok' || !call.used)
    .map((call) => `${call.label} ${call.provider ?? 'no provider'}${call.model ? `/${call.model}` : ''} (${call.status}: ${call.error ?? 'unused'})`);
  const answered = panel.filter((call) => call.status === 'ok').length;
  const message = `Too few panel answers for ${routeId}: ${answered} of ${panel.length} answered, ${needed} needed. ${reasons.join(', ')}. Retry in a few seconds; if it persists, see the status page.`;
  return new RouterError('all_upstreams_failed', message, {
    status: 502,
    details: { attempts: panel.flatMap((call) => call.attempts), members, skipped: [] },
  });
}
