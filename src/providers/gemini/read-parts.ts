import type { ChatToolCall } from '../../formats/openai-chat.js';
import type { GeminiPart } from './gemini-types.js';
import { mintId } from './mint-id.js';
import type { ThoughtSignatureMemory } from './thought-signature-memory.js';

export interface ReadParts {
  text: string;
  reasoning: string;
  toolCalls: ChatToolCall[];
}

/**
 * The parts of a candidate (or of one stream event) in chat terms: answer text, thought-summary text
 * and tool calls. quirk(gemini): function calls usually come without an id, so every call gets a
 * minted `call_…` id, and its thought signature is remembered under that id for the next turn.
 */
export function readParts(parts: readonly GeminiPart[], signatures: ThoughtSignatureMemory): ReadParts {
  const read: ReadParts = { text: '', reasoning: '', toolCalls: [] };
  for (const part of parts) {
    if (part.functionCall) {
      const id = mintId('call_');
      if (part.thoughtSignature !== undefined) signatures.set(id, part.thoughtSignature);
      const args = part.functionCall.args ?? {};
      read.toolCalls.push({ id, type: 'function', function: { name: part.functionCall.name, arguments: JSON.stringify(args) } });
    } else if (typeof part.text === 'string') {
      if (part.thought === true) read.reasoning += part.text;
      else read.text += part.text;
    }
  }
  return read;
}
