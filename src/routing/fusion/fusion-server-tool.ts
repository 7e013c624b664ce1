/**
 * The `router:fusion` server tool on any route profile. The model is offered a function, `router_fusion`
 * with a `question`; when it calls it (and nothing else), the router runs the fusion pipeline on that
 * question with the conversation as context, feeds the answer back as the tool result and lets the
 * model continue, up to `maxToolRounds` runs per request. Calls of the client's own tools end the turn
 * and go back to the client as usual. Model turns are not streamed (the router must see whether the
 * model calls the tool); the server streams the final one to a streaming client.
 */
import type { FusionConfig, RouteProfileConfig } from '../../config/types.js';
import { isRouterError } from '../../core/errors.js';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import type { ChatCompletion, ChatMessage, ChatRequest, ChatTool, ChatToolCall } from '../../formats/openai-chat.js';
import { completeChatAttempt } from '../chat-attempts.js';
import { fusionAccessProblem } from './fusion-access.js';
import { completeFusion, withRetryCount, type FusionResult } from './fusion-pipeline.js';
import { flattenToolTraffic } from './fusion-prompts.js';
import type { FusionTrace } from './fusion-trace.js';
import { runStageCall, type FusionDeps } from './run-stage-call.js';

export const FUSION_TOOL_TYPE = 'router:fusion';
export const FUSION_FUNCTION_NAME = 'router_fusion';

const FUSION_FUNCTION: ChatTool = {
  type: 'function',
  function: {
    name: FUSION_FUNCTION_NAME,
    description:
      'Get a careful answer to a hard question from several strong models of different providers, compared and synthesized. Use it when accuracy matters more than speed; its answer comes back as this tool\'s result.',
    parameters: {
      type: 'object',
      properties: { question: { type: 'string', description: 'The question, self-contained: include the context it needs.' } },
      required: ['question'],
      additionalProperties: false,
    },
  },
};

export function hasFusionTool(tools: unknown): boolean {
  return Array.isArray(tools) && tools.some((tool) => (tool as { type?: unknown } | null)?.type === FUSION_TOOL_TYPE);
}

export interface FusionToolRun {
  /** The route profile the client asked for (its model turns). */
  route: RouteProfileConfig;
  /** The profile whose fusion pipeline the tool runs. */
  fusionRoute: RouteProfileConfig & { fusion: FusionConfig };
  accountId: string;
  signal: AbortSignal;
}

export async function completeWithFusionTool(deps: FusionDeps, run: FusionToolRun, chat: ChatRequest, trace: FusionTrace): Promise<FusionResult<ChatCompletion>> {
  const messages: ChatMessage[] = [...chat.messages];
  for (let turn = 1; ; turn++) {
    const offer = trace.toolRuns < run.fusionRoute.fusion.maxToolRounds;
    const request: ChatRequest = { ...withFusionFunction(chat, offer), messages, stream: false };
    delete request.stream_options;
    const outcome = await runStageCall(
      deps,
      {
        label: `model:${turn}`,
        role: 'model',
        route: run.route,
        accountId: run.accountId,
        signal: run.signal,
        attempt: (candidate) => completeChatAttempt(deps, candidate, request, run.signal),
        usageOf: (completion) => tokenUsageFromChat(completion.usage),
      },
      trace,
    );
    if (!outcome.ok) throw isRouterError(outcome.error) ? withRetryCount(outcome.error, trace) : outcome.error;
    outcome.call.used = true;
    const message = outcome.value.choices[0]?.message;
    const calls = message?.tool_calls ?? [];
    const fusionCalls = calls.filter((call) => call.function.name === FUSION_FUNCTION_NAME);
    if (!offer || fusionCalls.length === 0 || fusionCalls.length < calls.length) {
      return { value: withoutFusionCalls(outcome.value), meta: { ...outcome.meta, retryCount: trace.retryCount }, main: outcome.call };
    }
    const context = flattenToolTraffic(messages);
    messages.push({ role: 'assistant', content: message?.content ?? null, tool_calls: fusionCalls });
    for (const call of fusionCalls) messages.push({ role: 'tool', tool_call_id: call.id, content: await runTool(deps, run, chat, context, call, trace) });
  }
}

/** The tool's result: the fusion answer, or why there is none (the model goes on either way). */
async function runTool(deps: FusionDeps, run: FusionToolRun, chat: ChatRequest, context: ChatMessage[], call: ChatToolCall, trace: FusionTrace): Promise<string> {
  if (trace.toolRuns >= run.fusionRoute.fusion.maxToolRounds) return 'Not run: this request reached its limit of router_fusion runs. Answer with what you have.';
  const question = questionOf(call.function.arguments);
  if (question === undefined) return 'Not run: router_fusion needs a non-empty "question" string argument.';
  // Keys that cannot run the panel fail every run alike: the model is told why, and nothing is sent.
  const problem = await fusionAccessProblem(deps, run.accountId, run.fusionRoute);
  if (problem) return `Not run: ${problem.message}`;
  trace.toolRuns += 1;
  // The conversation before this turn, as context, then the question; no tools (the pipeline's writer answers in text).
  const { tools: _tools, tool_choice: _choice, parallel_tool_calls: _parallel, ...plain } = chat;
  const fusionChat: ChatRequest = { ...plain, stream: false, messages: [...context, { role: 'user', content: question }] };
  try {
    const prefix = `tool:${trace.toolRuns}:`;
    const { value } = await completeFusion(deps, { route: run.fusionRoute, accountId: run.accountId, signal: run.signal, labelPrefix: prefix }, fusionChat, trace);
    return value.choices[0]?.message.content ?? '';
  } catch (error) {
    if (run.signal.aborted || !isRouterError(error)) throw error;
    return `router_fusion failed: ${error.message}`;
  }
}

function questionOf(argumentsJson: string): string | undefined {
  try {
    const parsed = JSON.parse(argumentsJson) as { question?: unknown };
    return typeof parsed.question === 'string' && parsed.question.trim() !== '' ? parsed.question : undefined;
  } catch {
    return undefined;
  }
}

/** The client's tools with `router:fusion` replaced by the router_fusion function (or removed when no run is left). */
function withFusionFunction(chat: ChatRequest, offer: boolean): ChatRequest {
  const tools = (chat.tools ?? []).flatMap((tool) => (tool.type === FUSION_TOOL_TYPE ? (offer ? [FUSION_FUNCTION] : []) : [tool]));
  const request: ChatRequest = { ...chat };
  const choice = chat.tool_choice as { type?: string } | string | null | undefined;
  if (typeof choice === 'object' && choice?.type === FUSION_TOOL_TYPE) {
    request.tool_choice = offer ? { type: 'function', function: { name: FUSION_FUNCTION_NAME } } : 'auto';
  }
  if (tools.length > 0) return { ...request, tools };
  delete request.tools;
  delete request.tool_choice;
  delete request.parallel_tool_calls;
  return request;
}

/** A turn that called a client tool beside router_fusion goes back without the router's call. */
function withoutFusionCalls(completion: ChatCompletion): ChatCompletion {
  const choice = completion.choices[0];
  const calls = choice?.message.tool_calls;
  if (!choice || !calls?.some((call) => call.function.name === FUSION_FUNCTION_NAME)) return completion;
  const kept = calls.filter((call) => call.function.name !== FUSION_FUNCTION_NAME);
  const { tool_calls: _dropped, ...rest } = choice.message;
  const message = kept.length === 0 ? rest : { ...rest, tool_calls: kept };
  return { ...completion, choices: [{ ...choice, message, finish_reason: kept.length === 0 ? 'stop' : choice.finish_reason }, ...completion.choices.slice(1)] };
}
