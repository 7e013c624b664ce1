/**
 * The documented estimate of a Messages request's input tokens when no Anthropic upstream can count
 * them (docs/claude-code.md#count-tokens): one token per four characters of the prompt's JSON (system,
 * messages, tools), rounded up, plus each image at Anthropic's fixed ~1600 tokens. Never exact; the
 * response header says it is an estimate.
 */
import type { MessagesRequest } from '../../formats/anthropic-messages.js';

const CHARACTERS_PER_TOKEN = 4;
const TOKENS_PER_IMAGE = 1600;

export function estimateInputTokens(request: Pick<MessagesRequest, 'system' | 'messages' | 'tools'>): number {
  let images = 0;
  const text = JSON.stringify([request.system ?? null, request.messages, request.tools ?? null], (key, value: unknown) => {
    if (typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'image') {
      images += 1;
      return null;
    }
    return value;
  });
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN) + images * TOKENS_PER_IMAGE;
}
