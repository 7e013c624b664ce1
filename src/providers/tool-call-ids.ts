/**
 * Tool-call ids made legal for the provider a request goes to. A conversation that moves between
 * providers carries ids of every shape (Gemini's minted `call_…`, Anthropic's `toolu_…`, OpenAI's
 * `call_…`, a client's or another gateway's own, some hundreds of characters long with `+/=`), and each
 * provider has its rule: Anthropic's `tool_use.id` must match `^[a-zA-Z0-9_-]+$`; OpenAI refuses a chat
 * tool call id over 40 characters. An id that meets the rule is sent as it is (so every id a provider
 * issued reaches it again unchanged); any other becomes the rule's prefix and a hash of it: a pure
 * function, so a call and the result that answers it map to the same id wherever they sit in the
 * request, and on every turn. Answers name only the calls they make, with the provider's own ids, which
 * meet every rule, so nothing needs mapping back.
 */
import { createHash } from 'node:crypto';

export interface ToolCallIdRule {
  /** Characters every id must be made of (tested on the whole id). */
  pattern: RegExp;
  maxLength: number;
  /** What a mapped id starts with (the provider's own style). */
  prefix: string;
}

/** Anthropic's documented pattern; its length is bounded like OpenAI's Responses `call_id` (64). */
export const ANTHROPIC_TOOL_USE_ID: ToolCallIdRule = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64, prefix: 'toolu_' };

/** OpenAI's chat tool call ids: any characters, at most 40 of them. */
export const OPENAI_TOOL_CALL_ID: ToolCallIdRule = { pattern: /^[\s\S]+$/, maxLength: 40, prefix: 'call_' };

/** 24 base64url characters: 144 bits of SHA-256, so two ids of one conversation never meet. */
const HASH_CHARS = 24;

export function toolCallIdFor(id: string, rule: ToolCallIdRule): string {
  if (id.length <= rule.maxLength && rule.pattern.test(id)) return id;
  return rule.prefix + createHash('sha256').update(id).digest('base64url').slice(0, HASH_CHARS);
}
