/**
 * The Response object shared by the non-streaming answer and every lifecycle stream event. Request
 * settings are echoed the way OpenAI echoes them, with defaults where the client sent nothing, so the
 * object satisfies the official schema (which requires most of these fields, some as nullable).
 */
import type { Clock } from '../../core/clock.js';
import type { ChatFinishReason, ChatUsage } from '../../formats/openai-chat.js';
import type {
  ResponseErrorInfo,
  ResponseObject,
  ResponseOutputItem,
  ResponseStatus,
  ResponseUsage,
  ResponsesItemStatus,
  ResponsesRequest,
  ResponsesTool,
} from '../../formats/openai-responses.js';
import type { ResponseIdPrefix } from './random-response-id.js';

/** Everything the response side needs to know about the request it answers. */
export interface ResponseContext {
  responseId: string;
  /** The model name to report (the client's route profile or the upstream's model: the caller decides). */
  model: string;
  request: ResponsesRequest;
  /** Unix seconds when the request arrived. */
  createdAt: number;
  clock: Clock;
  /** Mints output item ids; production passes randomResponseId, tests a deterministic counter. */
  newId: (prefix: ResponseIdPrefix) => string;
}

export type IncompleteReason = 'max_output_tokens' | 'content_filter';

export interface ResponseOutcome {
  status: ResponseStatus;
  output: ResponseOutputItem[];
  /** Left out of the object when unknown: the schema has no null for it and Codex tolerates its absence. */
  usage?: ChatUsage | null | undefined;
  incompleteReason?: IncompleteReason | undefined;
  error?: ResponseErrorInfo | undefined;
}

export function buildResponseObject(ctx: ResponseContext, outcome: ResponseOutcome): ResponseObject {
  const { request } = ctx;
  const response: ResponseObject = {
    id: ctx.responseId,
    object: 'response',
    created_at: ctx.createdAt,
    completed_at: outcome.status === 'completed' ? Math.floor(ctx.clock.now() / 1000) : null,
    status: outcome.status,
    model: ctx.model,
    output: outcome.output,
    output_text: outputText(outcome.output),
    error: outcome.error ?? null,
    incomplete_details: outcome.incompleteReason ? { reason: outcome.incompleteReason } : null,
    instructions: request.instructions ?? null,
    tools: (request.tools ?? []).map(echoTool),
    tool_choice: request.tool_choice ?? 'auto',
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    previous_response_id: null,
    reasoning: request.reasoning ?? null,
    // The router persists nothing, whatever the client asked for; saying so keeps clients from fetching it later.
    store: false,
    background: false,
    text: { ...request.text, format: request.text?.format ?? { type: 'text' } },
    truncation: request.truncation ?? 'disabled',
    metadata: request.metadata ?? {},
    safety_identifier: request.safety_identifier ?? null,
    prompt_cache_key: request.prompt_cache_key ?? null,
  };
  if (typeof request.user === 'string') response.user = request.user;
  if (outcome.usage) response.usage = responseUsage(outcome.usage);
  return response;
}

/** Chat finish reason → Responses status (wire-formats.md §6.4). A missing reason means a natural end. */
export function statusFromFinishReason(reason: ChatFinishReason | null): { status: ResponseStatus; incompleteReason?: IncompleteReason } {
  if (reason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (reason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed' };
}

/** Items of a truncated or filtered response are marked incomplete, like OpenAI does. */
export function itemStatusFor(status: ResponseStatus): ResponsesItemStatus {
  return status === 'completed' ? 'completed' : 'incomplete';
}

function outputText(output: ResponseOutputItem[]): string {
  return output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
}

/** The schema requires `parameters` and `strict` on echoed function tools (null when not given). */
function echoTool(tool: ResponsesTool): ResponsesTool {
  if (tool.type !== 'function') return tool;
  return { ...tool, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict ?? null };
}

function responseUsage(usage: ChatUsage): ResponseUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: {
      cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      cache_write_tokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
      ...(usage.prompt_tokens_details?.cache_write_1h_tokens ? { cache_write_1h_tokens: usage.prompt_tokens_details.cache_write_1h_tokens } : {}),
    },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}
