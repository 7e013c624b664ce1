import type { ChatChunkDelta, ChatCompletionChunk, ChatFinishReason } from '../../formats/openai-chat.js';
import type { SseEvent } from '../../upstream/sse-event.js';
import { type AdapterContext, type ChatStreamTranslator } from '../adapter.js';
import { UpstreamStreamError, truncatedStream } from '../../upstream/upstream-failure.js';
import type { GeminiCandidate, GeminiErrorStatus, GeminiResponse, GeminiUsageMetadata } from './gemini-types.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { mintId } from './mint-id.js';
import { failureFromStatus, readErrorStatus } from './parse-gemini-error.js';
import { readParts } from './read-parts.js';

interface ChoiceState {
  roleSent: boolean;
  toolCalls: number;
  /** reasoning_details sent so far (their index numbers on). */
  details: number;
  finished: boolean;
}

/**
 * `streamGenerateContent?alt=sse` events → chat chunks. Each Gemini event is a complete
 * GenerateContentResponse carrying the next slice of every candidate; function calls arrive whole,
 * so each becomes one complete tool-call delta. Usage is cumulative; only the last one is reported,
 * once, when the upstream ends (Gemini has no end marker besides EOF and the finishReason).
 */
export class GeminiStreamTranslator implements ChatStreamTranslator {
  readonly #created: number;
  readonly #choices = new Map<number, ChoiceState>();
  #id: string | undefined;
  #model: string;
  #usage: GeminiUsageMetadata | undefined;

  constructor(ctx: AdapterContext, nowMs: number) {
    this.#created = Math.floor(nowMs / 1000);
    this.#model = ctx.upstreamModel;
  }

  onEvent(event: SseEvent): ChatCompletionChunk[] {
    // quirk(gemini): an error after the 200 can arrive as a bare JSON object instead of a data line.
    if (event.raw !== undefined && event.raw.trim() !== '') throw streamError(readErrorStatus(event.raw));
    if (event.data.trim() === '') return [];
    const response = parseEvent(event.data);
    this.#id ??= response.responseId;
    this.#model = response.modelVersion ?? this.#model;
    if (response.usageMetadata) this.#usage = response.usageMetadata;
    const candidates = response.candidates ?? [];
    if (candidates.length === 0 && response.promptFeedback?.blockReason !== undefined) {
      const state = this.#stateOf(0);
      return state.finished ? [] : [this.#finishChunk(0, state, 'content_filter')];
    }
    return candidates.flatMap((candidate, position) => this.#candidateChunks(candidate, position));
  }

  onEnd(): ChatCompletionChunk[] {
    // quirk(gemini): there is no end marker besides EOF; a candidate's finishReason is the only sign
    // that its answer is whole, so EOF before every candidate finished is a cut-short answer.
    if (this.#choices.size === 0 || [...this.#choices.values()].some((state) => !state.finished)) throw truncatedStream('Gemini');
    return this.#usage ? [{ ...this.#chunk(0, {}), choices: [], usage: mapUsage(this.#usage) }] : [];
  }

  #candidateChunks(candidate: GeminiCandidate, position: number): ChatCompletionChunk[] {
    const index = candidate.index ?? position;
    const state = this.#stateOf(index);
    if (state.finished) return [];
    const out: ChatCompletionChunk[] = [];
    const { text, reasoning, toolCalls, details } = readParts(candidate.content?.parts ?? [], state.details);
    state.details += details.length;
    const delta: ChatChunkDelta = {};
    if (reasoning !== '') delta.reasoning_content = reasoning;
    if (text !== '') delta.content = text;
    if (toolCalls.length > 0) delta.tool_calls = toolCalls.map((call) => ({ index: state.toolCalls++, ...call }));
    if (details.length > 0) delta.reasoning_details = details;
    if (Object.keys(delta).length > 0) {
      out.push(this.#chunk(index, state.roleSent ? delta : { role: 'assistant', ...delta }));
      state.roleSent = true;
    }
    if (candidate.finishReason !== undefined) {
      out.push(this.#finishChunk(index, state, mapFinishReason(candidate.finishReason, state.toolCalls > 0)));
    }
    return out;
  }

  #finishChunk(index: number, state: ChoiceState, reason: ChatFinishReason): ChatCompletionChunk {
    const delta: ChatChunkDelta = state.roleSent ? {} : { role: 'assistant' };
    state.roleSent = true;
    state.finished = true;
    return this.#chunk(index, delta, reason);
  }

  #chunk(index: number, delta: ChatChunkDelta, finish: ChatFinishReason | null = null): ChatCompletionChunk {
    this.#id ??= mintId('chatcmpl-');
    return {
      id: this.#id,
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model,
      choices: [{ index, delta, finish_reason: finish }],
    };
  }

  #stateOf(index: number): ChoiceState {
    let state = this.#choices.get(index);
    if (!state) this.#choices.set(index, (state = { roleSent: false, toolCalls: 0, details: 0, finished: false }));
    return state;
  }
}

function parseEvent(data: string): GeminiResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw streamError(undefined);
  }
  if (typeof parsed !== 'object' || parsed === null) throw streamError(undefined);
  const error = (parsed as { error?: GeminiErrorStatus }).error;
  if (error !== undefined) throw streamError(error);
  return parsed as GeminiResponse;
}

function streamError(error: GeminiErrorStatus | undefined): UpstreamStreamError {
  if (error === undefined) {
    return new UpstreamStreamError({ status: 502, type: 'server_error', code: null, message: 'Gemini sent a stream event the router could not read.' });
  }
  return new UpstreamStreamError(failureFromStatus(typeof error.code === 'number' ? error.code : 500, error));
}
