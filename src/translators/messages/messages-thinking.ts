/**
 * Thinking on the translated Messages path (OpenAI-format and Gemini upstreams), both ways.
 *
 * Asked: `thinking` becomes the chat shape's `reasoning` (OpenRouter's switch), which each adapter maps
 * to its own control by the served model's catalog entry: `enabled` with `budget_tokens` → `max_tokens`
 * (Gemini's thinkingBudget, or the nearest effort); `adaptive` → the effort of `output_config.effort`
 * (medium by default); `disabled`, or no `thinking`, → nothing, the upstream's default (a `none` effort
 * or a zero budget is refused by many models that always think).
 *
 * Answered: the upstream's reasoning text is a `thinking` block whose `signature` is the router's
 * encoding of the turn's `reasoning_details` (Gemini's thought signatures, a host's encrypted reasoning:
 * formats/reasoning-carrier.ts, the carrier Responses uses too); details without text come as a
 * `redacted_thinking` block whose `data` is that encoding. Sent back, the router's blocks turn into those
 * details again, exactly; Anthropic's own signed blocks become Anthropic-format details, which only an
 * Anthropic adapter uses (every other adapter leaves another provider's details out).
 */
import { ANTHROPIC_REASONING_FORMAT, type ChatReasoningOptions, type ReasoningDetail } from '../../formats/openai-chat.js';
import type { MessagesRequest } from '../../formats/anthropic-messages.js';
import { decodeReasoningDetails, encodeReasoningDetails } from '../../formats/reasoning-carrier.js';

/** Anthropic's effort words that chat has too; `max` is chat's `high`, the highest every reasoning model takes. */
const EFFORTS: ReadonlyMap<unknown, string> = new Map([
  ['low', 'low'],
  ['medium', 'medium'],
  ['high', 'high'],
  ['max', 'high'],
]);

export function thinkingToReasoning(request: Pick<MessagesRequest, 'thinking' | 'output_config'>): ChatReasoningOptions | undefined {
  const thinking = request.thinking;
  if (typeof thinking !== 'object' || thinking === null) return undefined;
  const budget = thinking.budget_tokens;
  if (thinking.type === 'enabled' && typeof budget === 'number' && Number.isSafeInteger(budget) && budget > 0) return { max_tokens: budget };
  if (thinking.type !== 'enabled' && thinking.type !== 'adaptive') return undefined;
  return { effort: EFFORTS.get(request.output_config?.effort) ?? 'medium' };
}

/** The router's signature for a turn's reasoning details (also the `data` of a redacted_thinking block it issues). */
export function thinkingSignature(details: readonly ReasoningDetail[]): string {
  return encodeReasoningDetails(details);
}

/**
 * The reasoning an assistant turn's thinking and redacted_thinking blocks carry back: the text (chat's
 * `reasoning_content`) and the details, numbered apart block by block so no two blocks share an index.
 */
export function reasoningOfBlocks(blocks: ReadonlyArray<{ type: string }>): { text: string; details: ReasoningDetail[] } {
  let text = '';
  const details: ReasoningDetail[] = [];
  let next = 0;
  const add = (own: readonly ReasoningDetail[]) => {
    const base = next;
    own.forEach((detail, position) => {
      const index = base + (typeof detail.index === 'number' && detail.index >= 0 ? detail.index : position);
      details.push({ ...detail, index });
      next = Math.max(next, index + 1);
    });
  };
  for (const block of blocks) {
    if (block.type === 'thinking') {
      const { thinking, signature } = block as { thinking?: unknown; signature?: unknown };
      const said = typeof thinking === 'string' ? thinking : '';
      text += said;
      const own = decodeReasoningDetails(signature);
      if (own) add(own);
      else if (typeof signature === 'string' && signature !== '') add([{ type: 'reasoning.text', text: said, signature, format: ANTHROPIC_REASONING_FORMAT }]);
    } else if (block.type === 'redacted_thinking') {
      const { data } = block as { data?: unknown };
      const own = decodeReasoningDetails(data);
      if (own) add(own);
      else if (typeof data === 'string' && data !== '') add([{ type: 'reasoning.encrypted', data, format: ANTHROPIC_REASONING_FORMAT }]);
    }
  }
  return { text, details };
}
