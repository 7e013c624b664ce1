import type { ChatToolCall, ReasoningDetail } from '../../formats/openai-chat.js';
import type { GeminiPart } from './gemini-types.js';
import { mintId } from './mint-id.js';

/** `reasoning_details` format of a Gemini thought signature (OpenRouter's name for it). */
export const GEMINI_REASONING_FORMAT = 'google-gemini-v1';

export interface ReadParts {
  text: string;
  reasoning: string;
  toolCalls: ChatToolCall[];
  /** Each function call's thought signature, with the call's id, to come back on the next turn. */
  details: ReasoningDetail[];
}

/**
 * The parts of a candidate (or of one stream event) in chat terms: answer text, thought-summary text,
 * tool calls and their thought signatures. quirk(gemini): function calls usually come without an id, so
 * every call gets a minted `call_…` id, and its signature travels on the assistant message in
 * `reasoning_details` (`reasoning.encrypted`, the call's id in `id`) and on the call itself in
 * `extra_content.google.thought_signature` (Google's OpenAI-compatible field) for a client that sends
 * either back; for one that keeps neither, routing keeps it under the call's id in the shared store
 * (routing/tool-call-signatures.ts). `firstIndex` numbers the details on from those already sent in a stream.
 */
export function readParts(parts: readonly GeminiPart[], firstIndex = 0): ReadParts {
  const read: ReadParts = { text: '', reasoning: '', toolCalls: [], details: [] };
  for (const part of parts) {
    if (part.functionCall) {
      const id = mintId('call_');
      if (part.thoughtSignature !== undefined) {
        read.details.push({ type: 'reasoning.encrypted', data: part.thoughtSignature, id, format: GEMINI_REASONING_FORMAT, index: firstIndex + read.details.length });
      }
      const args = part.functionCall.args ?? {};
      const call: ChatToolCall = { id, type: 'function', function: { name: part.functionCall.name, arguments: JSON.stringify(args) } };
      // Also where Google's own OpenAI-compatible endpoint puts it, for clients written against that.
      if (part.thoughtSignature !== undefined) call.extra_content = { google: { thought_signature: part.thoughtSignature } };
      read.toolCalls.push(call);
    } else if (typeof part.text === 'string') {
      if (part.thought === true) read.reasoning += part.text;
      else read.text += part.text;
    }
  }
  return read;
}
