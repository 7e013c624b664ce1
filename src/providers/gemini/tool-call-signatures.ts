import type { ChatMessage, ChatRequest, ReasoningDetail } from '../../formats/openai-chat.js';
import type { IssuedSignature, ToolCallSignatureCapability } from '../adapter.js';
import { GEMINI_REASONING_FORMAT } from './read-parts.js';
import { signaturesOf } from './translate-messages.js';

/** The ids read-parts.ts mints for Gemini's calls (mint-id.ts): only these can have a kept signature. */
const ISSUED_CALL_ID = /^call_[0-9A-Za-z]{24}$/;

/**
 * Gemini's thought signatures as routing keeps them for clients that drop them: issued in
 * `reasoning_details` under the call's id, looked up for the router's own call ids that came back
 * unsigned, and put back as the same `reasoning_details` the adapter reads (translate-messages.ts).
 */
export const geminiToolCallSignatures: ToolCallSignatureCapability = {
  unsignedCallIds(request, limit) {
    const ids: string[] = [];
    for (let m = request.messages.length - 1; m >= 0 && ids.length < limit; m -= 1) {
      const message = request.messages[m]!;
      if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
      const signed = signaturesOf(message);
      for (const call of message.tool_calls) {
        if (ids.length < limit && ISSUED_CALL_ID.test(call.id) && !signed.has(call.id)) ids.push(call.id);
      }
    }
    return ids;
  },

  withSignatures(request, signatures) {
    if (signatures.size === 0) return request;
    return { ...request, messages: request.messages.map((message) => withKeptSignatures(message, signatures)) };
  },

  issuedIn(details) {
    const issued: IssuedSignature[] = [];
    for (const detail of details ?? []) {
      if (detail.format !== GEMINI_REASONING_FORMAT || detail.type !== 'reasoning.encrypted') continue;
      if (typeof detail.id === 'string' && ISSUED_CALL_ID.test(detail.id) && typeof detail.data === 'string' && detail.data !== '') {
        issued.push({ callId: detail.id, signature: detail.data });
      }
    }
    return issued;
  },
};

function withKeptSignatures(message: ChatMessage, signatures: ReadonlyMap<string, string>): ChatMessage {
  if (message.role !== 'assistant' || !message.tool_calls?.some((call) => signatures.has(call.id))) return message;
  const kept: ReasoningDetail[] = message.tool_calls.flatMap((call) => {
    const data = signatures.get(call.id);
    return data === undefined ? [] : [{ type: 'reasoning.encrypted', data, id: call.id, format: GEMINI_REASONING_FORMAT }];
  });
  return { ...message, reasoning_details: [...(message.reasoning_details ?? []), ...kept] };
}
