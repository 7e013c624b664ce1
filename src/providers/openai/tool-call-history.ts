/**
 * The history's tool calls as an OpenAI-compatible host accepts them: ids over OpenAI's 40 characters
 * (another provider's, another gateway's) mapped by tool-call-ids.ts, the same for the call and the tool
 * message answering it, and Google's `extra_content` (a Gemini signature, meaningless here) left out.
 * Copies only the messages that change, and only when one does: most requests carry nothing to change.
 */
import type { ChatMessage, ChatToolCall } from '../../formats/openai-chat.js';
import { OPENAI_TOOL_CALL_ID, toolCallIdFor } from '../tool-call-ids.js';
import { isRecord } from './is-record.js';

export function legalToolCallHistory(messages: unknown): unknown {
  if (!Array.isArray(messages) || !messages.some(needsChange)) return messages;
  return messages.map((message) => (needsChange(message) ? changed(message as ChatMessage) : message));
}

function needsChange(message: unknown): boolean {
  if (!isRecord(message)) return false;
  if (message.role === 'tool') return typeof message.tool_call_id === 'string' && toolCallIdFor(message.tool_call_id, OPENAI_TOOL_CALL_ID) !== message.tool_call_id;
  return Array.isArray(message.tool_calls) && message.tool_calls.some((call) => isRecord(call) && ('extra_content' in call || (typeof call.id === 'string' && toolCallIdFor(call.id, OPENAI_TOOL_CALL_ID) !== call.id)));
}

function changed(message: ChatMessage): ChatMessage {
  if (message.role === 'tool') return { ...message, tool_call_id: toolCallIdFor(message.tool_call_id!, OPENAI_TOOL_CALL_ID) };
  return { ...message, tool_calls: message.tool_calls!.map(legalCall) };
}

function legalCall(call: ChatToolCall): ChatToolCall {
  if (!isRecord(call)) return call;
  const { extra_content: _google, ...rest } = call;
  return typeof rest.id === 'string' ? { ...rest, id: toolCallIdFor(rest.id, OPENAI_TOOL_CALL_ID) } : rest;
}
