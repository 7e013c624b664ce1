/**
 * The panel stage: every member asked at once, each through its own failover tiers, each bounded by
 * `panelTimeoutMs`. A member that fails after its failover, times out or answers nothing is dropped;
 * the client leaving aborts every member call at once (they share the request's signal).
 */
import type { FusionConfig, RouteProfileConfig } from '../../config/types.js';
import type { ChatCompletion, ChatRequest } from '../../formats/openai-chat.js';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import { completeChatAttempt } from '../chat-attempts.js';
import type { FusionCall, FusionTrace } from './fusion-trace.js';
import { panelRequest } from './fusion-prompts.js';
import { runStageCall, type FusionDeps } from './run-stage-call.js';
import { stageRoute } from './stage-route.js';

export interface PanelAnswer {
  text: string;
  call: FusionCall;
}

export interface PanelRun {
  route: RouteProfileConfig;
  fusion: FusionConfig;
  accountId: string;
  signal: AbortSignal;
  /** Prefix of the call labels (`tool:1:` inside a server-tool run). */
  labelPrefix: string;
}

export async function runPanel(deps: FusionDeps, run: PanelRun, chat: ChatRequest, trace: FusionTrace): Promise<PanelAnswer[]> {
  const request = panelRequest(chat, run.fusion.maxPanelOutputTokens);
  const answers = await Promise.all(run.fusion.panel.map((member, index) => askMember(deps, run, index, member, request, trace)));
  return answers.filter((answer): answer is PanelAnswer => answer !== undefined);
}

async function askMember(
  deps: FusionDeps,
  run: PanelRun,
  index: number,
  member: FusionConfig['panel'][number],
  request: ChatRequest,
  trace: FusionTrace,
): Promise<PanelAnswer | undefined> {
  const label = `${run.labelPrefix}panel:${index + 1}`;
  const limit = memberSignal(run.signal, run.fusion.panelTimeoutMs);
  const { signal } = limit;
  const outcome = await runStageCall<ChatCompletion>(
    deps,
    {
      label,
      role: 'panel',
      route: stageRoute(run.route, label, member),
      accountId: run.accountId,
      signal,
      attempt: (candidate) => completeChatAttempt(deps, candidate, request, signal),
      usageOf: (completion) => tokenUsageFromChat(completion.usage),
    },
    trace,
  ).finally(limit.release);
  if (!outcome.ok) {
    // The client left: the whole run ends (the server answers nothing and counts what ran).
    if (run.signal.aborted) throw outcome.error;
    if (limit.timedOut) {
      outcome.call.status = 'timeout';
      outcome.call.error = 'panel_timeout';
    }
    return undefined;
  }
  const text = outcome.value.choices[0]?.message.content?.trim() ?? '';
  if (text === '') {
    outcome.call.status = 'empty';
    outcome.call.error = 'empty_answer';
    return undefined;
  }
  return { text, call: outcome.call };
}

/**
 * A member's signal: aborted when the request's is (the client left) or when the panel's time is up.
 * Linked by hand, not with `AbortSignal.any`: the request's signal is its keep-alive connection's
 * (http/abort-on-disconnect.ts), and Node 20 keeps a reference on the source for every `any` made from
 * it for as long as the source lives, so a connection sending many fusion requests would pile them up.
 */
function memberSignal(request: AbortSignal, timeoutMs: number): { signal: AbortSignal; readonly timedOut: boolean; release(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const onRequestAbort = () => controller.abort(request.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The panel member did not answer in time.', 'TimeoutError'));
  }, timeoutMs);
  timer.unref();
  if (request.aborted) controller.abort(request.reason);
  else request.addEventListener('abort', onRequestAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    release() {
      clearTimeout(timer);
      request.removeEventListener('abort', onRequestAbort);
    },
  };
}
