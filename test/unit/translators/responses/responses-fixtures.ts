/** Shared builders for the Responses translator tests: a deterministic context and chat chunks. */
import type { ChatChunkDelta, ChatCompletionChunk, ChatFinishReason, ChatToolCallDelta, ChatUsage } from '../../../../src/formats/openai-chat.js';
import type { ResponseObject, ResponsesRequest, ResponsesStreamEvent } from '../../../../src/formats/openai-responses.js';
import type { ResponseContext } from '../../../../src/translators/responses/build-response-object.js';

export const CREATED_AT = 1_760_000_000;
export const NOW_MS = 1_760_000_004_700;

/** Ids come out as `<prefix>_<n>`, counted per prefix, so tests can name them. */
export function testContext(request: Partial<ResponsesRequest> = {}): ResponseContext {
  const counters = new Map<string, number>();
  return {
    responseId: 'resp_test',
    model: 'router/frontier',
    request: { model: 'router/frontier', input: 'Hi', ...request },
    createdAt: CREATED_AT,
    clock: { now: () => NOW_MS },
    newId: (prefix) => {
      const next = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, next);
      return `${prefix}_${next}`;
    },
  };
}

export function chunk(delta: ChatChunkDelta, finishReason: ChatFinishReason | null = null): ChatCompletionChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: CREATED_AT,
    model: 'upstream-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    usage: null,
  };
}

export function toolCallChunk(...fragments: ChatToolCallDelta[]): ChatCompletionChunk {
  return chunk({ tool_calls: fragments });
}

export function usageChunk(usage: ChatUsage): ChatCompletionChunk {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: CREATED_AT, model: 'upstream-model', choices: [], usage };
}

export const USAGE: ChatUsage = {
  prompt_tokens: 120,
  completion_tokens: 30,
  total_tokens: 150,
  prompt_tokens_details: { cached_tokens: 100 },
  completion_tokens_details: { reasoning_tokens: 12 },
};

export type EventOfType<Type extends ResponsesStreamEvent['type']> = ResponsesStreamEvent & { type: Type };

export function eventsOfType<Type extends ResponsesStreamEvent['type']>(events: ResponsesStreamEvent[], type: Type): Array<EventOfType<Type>> {
  return events.filter((event): event is EventOfType<Type> => event.type === type);
}

/** The response carried by the last event, which must be a lifecycle event. */
export function terminalResponse(events: ResponsesStreamEvent[]): ResponseObject {
  const last = events.at(-1);
  if (!last || !('response' in last)) throw new Error('the stream did not end with a lifecycle event');
  return last.response;
}
