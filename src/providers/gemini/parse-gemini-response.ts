import type { ChatCompletion } from '../../formats/openai-chat.js';
import { type AdapterContext } from '../adapter.js';
import { UpstreamStreamError } from '../../upstream/upstream-failure.js';
import type { GeminiCandidate, GeminiResponse } from './gemini-types.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { mintId } from './mint-id.js';
import { readParts } from './read-parts.js';

type Choice = ChatCompletion['choices'][number];

/** A `generateContent` body → chat completion; one choice per candidate. */
export function parseGeminiResponse(
  body: unknown,
  ctx: AdapterContext,
  nowMs: number,
): ChatCompletion {
  if (typeof body !== 'object' || body === null) {
    throw new UpstreamStreamError({ status: 502, type: 'server_error', code: null, message: 'Gemini returned a body that is not a JSON object.' });
  }
  const response = body as GeminiResponse;
  const completion: ChatCompletion = {
    id: response.responseId ?? mintId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(nowMs / 1000),
    model: response.modelVersion ?? ctx.upstreamModel,
    choices: choicesOf(response),
  };
  if (response.usageMetadata) completion.usage = mapUsage(response.usageMetadata);
  return completion;
}

function choicesOf(response: GeminiResponse): Choice[] {
  const candidates = response.candidates ?? [];
  if (candidates.length === 0) {
    // A blocked prompt yields no candidates at all, only promptFeedback.blockReason.
    const finish = response.promptFeedback?.blockReason === undefined ? 'stop' : 'content_filter';
    return [{ index: 0, message: { role: 'assistant', content: '', refusal: null }, finish_reason: finish, logprobs: null }];
  }
  return candidates.map((candidate, position) => choiceOf(candidate, position));
}

function choiceOf(candidate: GeminiCandidate, position: number): Choice {
  const { text, reasoning, toolCalls, details } = readParts(candidate.content?.parts ?? []);
  const message: Choice['message'] = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (details.length > 0) message.reasoning_details = details;
  return {
    index: candidate.index ?? position,
    message,
    finish_reason: mapFinishReason(candidate.finishReason, toolCalls.length > 0),
    logprobs: null,
  };
}
