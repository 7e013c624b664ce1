/**
 * Responses `input` (a string or a list of items) → chat messages. Calls become assistant `tool_calls`
 * (consecutive calls share ONE assistant message, as every chat upstream expects) and their outputs
 * become `tool` messages. A reasoning item the router made carries the turn's signed reasoning
 * (formats/reasoning-carrier.ts): it goes back on the next assistant message as `reasoning_details`. Items that
 * only mean something to OpenAI's servers (their reasoning, hosted-tool calls, compaction) are dropped:
 * a chat upstream cannot use them, and Codex sends them on every turn.
 */
import { RouterError } from '../../core/errors.js';
import type { ChatContentPart, ChatMessage, ChatToolCall } from '../../formats/openai-chat.js';
import type {
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesMessageContent,
  ResponsesMessageItem,
  ResponsesRequest,
} from '../../formats/openai-responses.js';
import { customToolCallArguments } from './custom-tool-bridge.js';
import { decodeReasoningDetails } from '../../formats/reasoning-carrier.js';
import { itemReferenceError } from './reject-stateful-fields.js';

const MESSAGE_ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'developer']);

export function responsesInputToMessages(input: ResponsesRequest['input']): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) {
    throw new RouterError('invalid_request', '`input` must be a string or an array of input items.', { param: 'input' });
  }
  const messages: ChatMessage[] = [];
  let carried: ChatMessage['reasoning_details'];
  input.forEach((item, index) => {
    const details = item?.type === 'reasoning' ? decodeReasoningDetails((item as { encrypted_content?: unknown }).encrypted_content) : undefined;
    if (details) carried = [...(carried ?? []), ...details];
    const before = messages.length;
    appendItem(messages, item, `input[${index}]`);
    // The reasoning goes on the assistant message the next output item makes or joins (a call joins the one before it).
    const joined = item?.type === 'function_call' || item?.type === 'custom_tool_call';
    const target = messages.length > before || joined ? messages.at(-1) : undefined;
    if (carried && target?.role === 'assistant') {
      target.reasoning_details = [...(target.reasoning_details ?? []), ...carried];
      carried = undefined;
    }
  });
  return messages;
}

function appendItem(messages: ChatMessage[], item: ResponsesInputItem, param: string): void {
  if (typeof item !== 'object' || item === null) throw invalid(`${param} must be an object.`, param);
  switch (item.type) {
    case undefined:
    case 'message':
      messages.push(messageToChat(item, param));
      return;
    case 'function_call':
      appendToolCall(messages, toolCall(item.call_id, item.name, item.arguments, param));
      return;
    case 'custom_tool_call':
      appendToolCall(messages, toolCall(item.call_id, item.name, customToolCallArguments(item.input), param));
      return;
    case 'function_call_output':
    case 'custom_tool_call_output':
      requireString(item.call_id, `${param}.call_id`);
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: toolOutputText(item.output, `${param}.output`) });
      return;
    case 'item_reference':
      // Refused before admission (rejectStatefulFields); kept so this switch never drops one silently.
      throw itemReferenceError(param);
    default:
      // reasoning, hosted-tool calls and their outputs, compaction and item types newer than this code.
      return;
  }
}

function messageToChat(item: ResponsesMessageItem, param: string): ChatMessage {
  if (!MESSAGE_ROLES.has(item.role)) throw invalid(`${param}.role must be one of user, assistant, system, developer.`, `${param}.role`);
  return { role: item.role, content: contentToChat(item.content, `${param}.content`) };
}

/**
 * Text-only content collapses to a plain string: every chat host accepts a string for every role, while
 * several OpenAI-compatible hosts reject part arrays on system and assistant messages.
 */
function contentToChat(content: string | ResponsesMessageContent[], param: string): string | ChatContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(`${param} must be a string or an array of content parts.`, param);
  const parts = content.map((part, index) => partToChat(part, `${param}[${index}]`));
  const texts = parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  return texts.length === parts.length ? texts.join('\n') : parts;
}

function partToChat(part: ResponsesMessageContent, param: string): ChatContentPart {
  switch (part?.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'refusal', refusal: part.refusal };
    case 'input_image': {
      const { image_url: url, detail } = part;
      if (typeof url !== 'string') {
        throw new RouterError('unsupported_parameter', `${param}: images must be sent as image_url (a URL or data URL); file_id is not supported.`, { param });
      }
      // Chat has no 'original' detail level; leaving it out lets the upstream pick its default.
      return { type: 'image_url', image_url: detail === undefined || detail === 'original' ? { url } : { url, detail } };
    }
    case 'input_file':
      if (part.file_url !== undefined) {
        throw new RouterError('unsupported_parameter', `${param}: file_url is not supported; send file_data or file_id.`, { param });
      }
      return { type: 'file', file: definedOnly({ file_data: part.file_data, file_id: part.file_id ?? undefined, filename: part.filename }) };
    default:
      throw invalid(`${param} has an unsupported content type.`, `${param}.type`);
  }
}

function toolCall(callId: string, name: string, args: string, param: string): ChatToolCall {
  requireString(callId, `${param}.call_id`);
  requireString(name, `${param}.name`);
  return { id: callId, type: 'function', function: { name, arguments: args } };
}

/** Consecutive calls (reasoning items between them are dropped) join the preceding assistant message. */
function appendToolCall(messages: ChatMessage[], call: ChatToolCall): void {
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    last.tool_calls = [...(last.tool_calls ?? []), call];
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/** Chat tool messages carry text only; other parts leave a marker so the model knows something was there. */
function toolOutputText(output: string | ResponsesInputContent[], param: string): string {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) throw invalid(`${param} must be a string or an array of content parts.`, param);
  return output.map((part) => (part?.type === 'input_text' ? part.text : `[${part?.type ?? 'part'} omitted]`)).join('\n');
}

function requireString(value: unknown, param: string): void {
  if (typeof value !== 'string') throw invalid(`${param} must be a string.`, param);
}

function invalid(message: string, param: string): RouterError {
  return new RouterError('invalid_request', message, { param });
}

function definedOnly<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}
