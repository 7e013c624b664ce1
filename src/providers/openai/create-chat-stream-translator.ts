import { type AdapterContext, type ChatStreamTranslator } from '../adapter.js';
import { UpstreamStreamError, truncatedStream, type UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { ChatChunkDelta, ChatCompletionChunk, ChatFinishReason } from '../../formats/openai-chat.js';
import type { SseEvent } from '../../upstream/sse-event.js';
import { isRecord } from './is-record.js';
import { tryParseJson } from './try-parse-json.js';
import { malformedUpstreamFailure, openaiFailure } from './openai-failure.js';
import { ToolCallRepair } from './tool-call-repair.js';

type ChunkChoice = ChatCompletionChunk['choices'][number];

interface ChoiceState {
  finished: boolean;
  /** Content, refusal, reasoning or a tool call was streamed for this choice. */
  produced: boolean;
  toolCalls: ToolCallRepair;
}

const IN_STREAM_FAILURE: UpstreamFailure = {
  status: 502,
  type: 'server_error',
  code: null,
  message: 'The upstream provider reported an error inside the stream.',
  param: null,
};

/**
 * OpenAI-compatible chunks are already the internal shape; this per-request translator only repairs
 * what compatible hosts get wrong: vendor usage spots, tool-call indices, errors inside a 200 stream,
 * and a finish chunk missing before [DONE]. A stream with neither is cut short (truncatedStream).
 */
export function createChatStreamTranslator(_ctx: AdapterContext): ChatStreamTranslator {
  let done = false;
  let last: ChatCompletionChunk | undefined;
  const choices = new Map<number, ChoiceState>();

  function stateOf(index: number): ChoiceState {
    let state = choices.get(index);
    if (state === undefined) {
      state = { finished: false, produced: false, toolCalls: new ToolCallRepair() };
      choices.set(index, state);
    }
    return state;
  }

  // The payload is this translator's own fresh JSON.parse result, so it is repaired in place: no copies
  // per chunk on the hot path.
  function translateChunk(payload: Record<string, unknown>): ChatCompletionChunk {
    const chunk = payload as unknown as ChatCompletionChunk;
    if (payload.x_groq !== undefined) {
      // quirk(groq): usage arrives in `x_groq.usage` on the last chunk instead of `usage`.
      const groq = payload.x_groq;
      if (chunk.usage == null && isRecord(groq) && isRecord(groq.usage)) chunk.usage = groq.usage as unknown as ChatCompletionChunk['usage'];
      delete payload.x_groq;
    }
    chunk.choices = Array.isArray(payload.choices) ? translateChoices(payload.choices) : [];
    last = chunk;
    return chunk;
  }

  /** In the parsed array itself (an array per chunk less), unless a host put something that is not an object in it. */
  function translateChoices(upstreamChoices: unknown[]): ChunkChoice[] {
    const choices = upstreamChoices.every(isRecord) ? upstreamChoices : upstreamChoices.filter(isRecord);
    for (let position = 0; position < choices.length; position++) choices[position] = translateChoice(choices[position]!, position);
    return choices as unknown as ChunkChoice[];
  }

  function translateChoice(choice: Record<string, unknown>, position: number): ChunkChoice {
    const index = typeof choice.index === 'number' ? choice.index : position;
    const state = stateOf(index);
    const delta = (isRecord(choice.delta) ? choice.delta : {}) as ChatChunkDelta;
    if (Array.isArray(delta.tool_calls)) delta.tool_calls = state.toolCalls.repair(delta.tool_calls);
    if (carriesOutput(delta)) state.produced = true;
    const finishReason = (choice.finish_reason ?? null) as ChatFinishReason | null;
    if (finishReason !== null) state.finished = true;
    // Set one by one rather than with Object.assign and a literal: no object per chunk (same properties, same order).
    choice.index = index;
    choice.delta = delta;
    choice.finish_reason = finishReason;
    return choice as unknown as ChunkChoice;
  }

  return {
    onEvent(event: SseEvent): ChatCompletionChunk[] {
      // openai-node stops reading at [DONE]; anything a host sends after it is ignored the same way.
      if (done) return [];
      if (event.data === '[DONE]') {
        done = true;
        return [];
      }
      const payload = parsePayload(event);
      if (payload === undefined) return [];
      if (event.event === 'error' || payload.error != null) {
        throw new UpstreamStreamError(openaiFailure(payload, undefined) ?? IN_STREAM_FAILURE);
      }
      return [translateChunk(payload)];
    },
    onEnd(): ChatCompletionChunk[] {
      const unfinished = [...choices].filter(([, state]) => !state.finished);
      // Complete: every choice got its finish_reason, or the host said [DONE]. Anything else was cut short.
      if (!done && (choices.size === 0 || unfinished.length > 0)) throw truncatedStream('upstream');
      const closing: ChunkChoice[] = [];
      for (const [index, state] of unfinished) {
        if (!state.produced) continue;
        // quirk(compatible hosts): a few send [DONE] without a finish_reason; [DONE] says the answer is whole.
        const reason: ChatFinishReason = state.toolCalls.callCount > 0 ? 'tool_calls' : 'stop';
        closing.push({ index, delta: {}, finish_reason: reason, logprobs: null });
      }
      if (last === undefined || closing.length === 0) return [];
      return [{ id: last.id, object: 'chat.completion.chunk', created: last.created, model: last.model, choices: closing }];
    },
  };
}

/**
 * The JSON object of an event, or undefined for an event that carries nothing to translate.
 * quirk(gemini-openai-endpoint): a bare JSON error object can arrive outside any `data:` line; such
 * `raw` lines are read for an error and otherwise ignored.
 */
function parsePayload(event: SseEvent): Record<string, unknown> | undefined {
  if (event.data === '') {
    const raw = event.raw === undefined ? undefined : tryParseJson(event.raw);
    if (isRecord(raw) && raw.error != null) return raw;
    if (event.event === 'error') throw new UpstreamStreamError(IN_STREAM_FAILURE);
    return undefined;
  }
  const payload = tryParseJson(event.data);
  if (isRecord(payload)) return payload;
  if (event.event === 'error') throw new UpstreamStreamError(IN_STREAM_FAILURE);
  throw new UpstreamStreamError(malformedUpstreamFailure('a stream event that is not a JSON object'));
}

function carriesOutput(delta: ChatChunkDelta): boolean {
  return (
    (typeof delta.content === 'string' && delta.content !== '') ||
    (typeof delta.refusal === 'string' && delta.refusal !== '') ||
    (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') ||
    (delta.tool_calls !== undefined && delta.tool_calls.length > 0)
  );
}
