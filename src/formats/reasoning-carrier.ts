/**
 * How a chat answer's `reasoning_details` (signed thinking, thought signatures) ride through the
 * Responses API: in the reasoning item's `encrypted_content`, the field Responses clients (the SDKs,
 * Codex) already keep and send back verbatim, as OpenAI's own reasoning models require. The router's
 * value is marked (`router-rd1.`) so it is told apart from OpenAI's own, which a native Responses host
 * gets as it came while the router's never reaches one.
 */
import type { ReasoningDetail } from './openai-chat.js';

const PREFIX = 'router-rd1.';

export function encodeReasoningDetails(details: readonly ReasoningDetail[]): string {
  return PREFIX + Buffer.from(JSON.stringify(details)).toString('base64url');
}

/** The details in a reasoning item's `encrypted_content`, or undefined when it is not the router's. */
export function decodeReasoningDetails(encrypted: unknown): ReasoningDetail[] | undefined {
  if (!isRouterCarrier(encrypted)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(encrypted.slice(PREFIX.length), 'base64url').toString('utf8'));
    return Array.isArray(parsed) ? parsed.filter((detail): detail is ReasoningDetail => typeof detail === 'object' && detail !== null && typeof detail.type === 'string') : undefined;
  } catch {
    return undefined;
  }
}

export function isRouterCarrier(encrypted: unknown): encrypted is string {
  return typeof encrypted === 'string' && encrypted.startsWith(PREFIX);
}

/**
 * Stream pieces of one block (same `index`) joined into one detail: text and signatures concatenated,
 * so the item carries each block once, as a non-stream answer would.
 */
export function mergeReasoningDetails(pieces: readonly ReasoningDetail[]): ReasoningDetail[] {
  const byIndex = new Map<number, ReasoningDetail>();
  const merged: ReasoningDetail[] = [];
  for (const piece of pieces) {
    const held = typeof piece.index === 'number' ? byIndex.get(piece.index) : undefined;
    if (!held) {
      const copy = { ...piece };
      merged.push(copy);
      if (typeof piece.index === 'number') byIndex.set(piece.index, copy);
      continue;
    }
    if (piece.text !== undefined) held.text = (held.text ?? '') + piece.text;
    if (piece.signature !== undefined) held.signature = (held.signature ?? '') + piece.signature;
    if (piece.data !== undefined) held.data = (held.data ?? '') + piece.data;
  }
  return merged;
}
