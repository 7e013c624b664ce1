/**
 * Anthropic thinking ⇄ chat `reasoning_details` (OpenRouter's convention, formats/openai-chat.ts).
 * quirk(anthropic): with thinking on, the assistant turn before a tool result must begin with the
 * thinking block that came with it, signature intact (the signature covers the text), or the API
 * rejects the turn; redacted_thinking carries opaque data that must come back as it was. So each block
 * becomes one detail with the same index, and a detail goes back as the block it came from.
 */
import { ANTHROPIC_REASONING_FORMAT, type ReasoningDetail } from '../../formats/openai-chat.js';
import type { AnthropicAssistantBlock, AnthropicResponseBlock } from './anthropic-types.js';

/** The thinking and redacted_thinking blocks of a message, as details numbered in block order. */
export function reasoningDetailsOf(blocks: readonly AnthropicResponseBlock[]): ReasoningDetail[] {
  const details: ReasoningDetail[] = [];
  for (const block of blocks) {
    const detail = detailOf(block, details.length);
    if (detail) details.push(detail);
  }
  return details;
}

export function detailOf(block: { type?: string; thinking?: string; signature?: string; data?: string }, index: number): ReasoningDetail | undefined {
  if (block.type === 'thinking') {
    return { type: 'reasoning.text', text: block.thinking ?? '', ...(block.signature ? { signature: block.signature } : {}), format: ANTHROPIC_REASONING_FORMAT, index };
  }
  if (block.type === 'redacted_thinking') return { type: 'reasoning.encrypted', data: block.data ?? '', format: ANTHROPIC_REASONING_FORMAT, index };
  return undefined;
}

/**
 * An assistant message's details → the blocks to put first in its turn. Details of one index are merged
 * (a client may send back the stream's deltas as they came: text in pieces, the signature last); details
 * of another provider's format, and unsigned text (which Anthropic would reject), are left out.
 */
export function thinkingBlocksOf(details: readonly ReasoningDetail[] | undefined): AnthropicAssistantBlock[] {
  if (!Array.isArray(details) || details.length === 0) return [];
  const merged = new Map<number, { text: string; signature: string; data: string; type: ReasoningDetail['type'] }>();
  details.forEach((detail, position) => {
    if (detail.format !== undefined && detail.format !== ANTHROPIC_REASONING_FORMAT) return;
    const index = typeof detail.index === 'number' ? detail.index : position;
    const block = merged.get(index) ?? { text: '', signature: '', data: '', type: detail.type };
    block.text += detail.text ?? '';
    block.signature += detail.signature ?? '';
    block.data += detail.data ?? '';
    if (detail.type === 'reasoning.encrypted') block.type = detail.type;
    merged.set(index, block);
  });
  const blocks: AnthropicAssistantBlock[] = [];
  for (const [, block] of [...merged].sort(([a], [b]) => a - b)) {
    if (block.type === 'reasoning.encrypted' && block.data !== '') blocks.push({ type: 'redacted_thinking', data: block.data });
    else if (block.type === 'reasoning.text' && block.signature !== '') blocks.push({ type: 'thinking', thinking: block.text, signature: block.signature });
  }
  return blocks;
}
