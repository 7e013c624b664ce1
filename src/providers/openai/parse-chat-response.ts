import { type AdapterContext } from '../adapter.js';
import { UpstreamStreamError } from '../../upstream/upstream-failure.js';
import type { ChatCompletion } from '../../formats/openai-chat.js';
import { isRecord } from './is-record.js';
import { malformedUpstreamFailure, openaiFailure } from './openai-failure.js';

type Choice = ChatCompletion['choices'][number];

/**
 * A successful OpenAI-compatible body is already the internal shape: check the minimum the engine relies
 * on and fill the fields some hosts omit (`refusal`, `logprobs`, `content`) so clients always see them.
 * Everything else, vendor fields included, is passed through.
 * Throws UpstreamStreamError when the body is not a chat completion (the contract has no other carrier
 * for a failure after a 2xx status; the engine treats it like any upstream failure).
 */
export function parseChatResponse(body: unknown, _ctx: AdapterContext): ChatCompletion {
  if (!isRecord(body) || !Array.isArray(body.choices)) {
    // quirk(ollama, vllm): some hosts report errors with a 200 status and an error body.
    throw new UpstreamStreamError(openaiFailure(body, undefined) ?? malformedUpstreamFailure('a response without choices'));
  }
  const choices = body.choices.map(normalizeChoice);
  return { ...body, choices } as ChatCompletion;
}

function normalizeChoice(choice: unknown, position: number): Choice {
  if (!isRecord(choice) || !isRecord(choice.message)) {
    throw new UpstreamStreamError(malformedUpstreamFailure('a choice without a message'));
  }
  const message = choice.message;
  return {
    ...choice,
    index: typeof choice.index === 'number' ? choice.index : position,
    message: { ...message, role: 'assistant', content: message.content ?? null, refusal: message.refusal ?? null },
    finish_reason: choice.finish_reason ?? null,
    logprobs: choice.logprobs ?? null,
  } as Choice;
}
