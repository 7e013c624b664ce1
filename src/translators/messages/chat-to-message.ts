/**
 * A chat completion → an Anthropic Message: reasoning as a thinking block signed with the router's
 * encoding of the turn's reasoning details (or, details without text, a redacted_thinking block:
 * messages-thinking.ts), then the text, then one tool_use block per tool call with its id unchanged (so
 * the client's tool_result finds it next turn).
 */
import type { ChatCompletion, ChatToolCall } from '../../formats/openai-chat.js';
import type { MessagesResponse, MessagesResponseBlock } from '../../formats/anthropic-messages.js';
import { chatFinishToStopReason, chatUsageToMessages } from './chat-usage-to-messages.js';
import { matchedStopSequence } from './matched-stop-sequence.js';
import { thinkingSignature } from './messages-thinking.js';

export interface MessageContext {
  /** `msg_…`, minted by the caller. */
  id: string;
  /** The model name the client sent. */
  model: string;
  /** The request's `stop_sequences`, to name the one that ended the answer when the upstream says. */
  stopSequences?: readonly string[] | undefined;
}

export function chatCompletionToMessage(completion: ChatCompletion, context: MessageContext): MessagesResponse {
  const choice = completion.choices[0];
  const message = choice?.message;
  const content: MessagesResponseBlock[] = [];
  const details = message?.reasoning_details ?? [];
  if (message?.reasoning_content) content.push({ type: 'thinking', thinking: message.reasoning_content, signature: thinkingSignature(details) });
  else if (details.length > 0) content.push({ type: 'redacted_thinking', data: thinkingSignature(details) });
  const text = message?.content ?? message?.refusal ?? '';
  if (text !== '') content.push({ type: 'text', text });
  for (const call of message?.tool_calls ?? []) content.push(toolUseBlock(call));
  const stopSequence = matchedStopSequence(choice, context.stopSequences);
  return {
    id: context.id,
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    stop_reason: stopSequence === null ? chatFinishToStopReason(choice?.finish_reason) : 'stop_sequence',
    stop_sequence: stopSequence,
    usage: chatUsageToMessages(completion.usage),
  };
}

export function toolUseBlock(call: ChatToolCall): MessagesResponseBlock {
  return { type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) };
}

/** Tool input must be an object; arguments a model broke are sent as an empty object rather than failing the answer. */
export function toolInput(argumentsJson: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsJson === '' ? '{}' : argumentsJson);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
