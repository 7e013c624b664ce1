import { RouterError } from '../../core/errors.js';
import type { ChatMessage } from '../../formats/openai-chat.js';
import type {
  AnthropicAssistantBlock,
  AnthropicMessage,
  AnthropicToolResultBlock,
  AnthropicUserBlock,
} from './anthropic-types.js';
import { translateUserContent } from './translate-user-content.js';

export interface TranslatedMessages {
  /** All system and developer text, in order; undefined when there is none. */
  system: string | undefined;
  messages: AnthropicMessage[];
}

/**
 * Chat messages → Anthropic `system` + alternating user/assistant turns.
 * quirk(anthropic): system is a top-level field, not a role, so system and developer messages are
 * lifted out wherever they appear. Tool messages become tool_result blocks of a user turn, and
 * consecutive same-role turns are merged so that every result of one assistant turn lands in the
 * single next user message, ahead of any text there (Anthropic rejects anything else).
 */
export function translateMessages(messages: readonly ChatMessage[]): TranslatedMessages {
  const system: string[] = [];
  const turns: AnthropicMessage[] = [];
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = joinText(message.content);
        if (text !== '') system.push(text);
        return;
      }
      case 'user':
        return appendUser(turns, translateUserContent(message.content, param));
      case 'tool':
        return appendUser(turns, [toolResult(message, param)]);
      case 'assistant':
        return appendAssistant(turns, assistantBlocks(message));
      default:
        throw new RouterError(
          'unsupported_parameter',
          `Messages with role "${String(message.role)}" cannot be sent to this route; use tool messages instead.`,
          { param: `${param}.role` },
        );
    }
  });
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: turns };
}

function appendUser(turns: AnthropicMessage[], blocks: AnthropicUserBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role !== 'user') {
    turns.push({ role: 'user', content: blocks });
    return;
  }
  const merged = [...last.content, ...blocks];
  last.content = [...merged.filter(isToolResult), ...merged.filter((block) => !isToolResult(block))];
}

function appendAssistant(turns: AnthropicMessage[], blocks: AnthropicAssistantBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === 'assistant') last.content.push(...blocks);
  else turns.push({ role: 'assistant', content: blocks });
}

function isToolResult(block: AnthropicUserBlock): block is AnthropicToolResultBlock {
  return block.type === 'tool_result';
}

function toolResult(message: ChatMessage, param: string): AnthropicToolResultBlock {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') {
    throw new RouterError('invalid_request', 'A tool message needs the tool_call_id it answers.', {
      param: `${param}.tool_call_id`,
    });
  }
  const text = joinText(message.content);
  // quirk(anthropic): an empty text result is rejected, an absent one is fine.
  return text === ''
    ? { type: 'tool_result', tool_use_id: toolUseId(message.tool_call_id) }
    : { type: 'tool_result', tool_use_id: toolUseId(message.tool_call_id), content: text };
}

function assistantBlocks(message: ChatMessage): AnthropicAssistantBlock[] {
  const blocks: AnthropicAssistantBlock[] = [];
  const text = joinText(message.content) || (message.refusal ?? '');
  if (text !== '') blocks.push({ type: 'text', text });
  for (const call of message.tool_calls ?? []) {
    blocks.push({ type: 'tool_use', id: toolUseId(call.id), name: call.function.name, input: toolInput(call.function.arguments) });
  }
  return blocks;
}

/**
 * quirk(anthropic): tool_use.input must be a JSON object, but chat arguments are a free string that
 * models sometimes leave truncated or invalid. Rejecting would make the conversation impossible to
 * continue, so anything that is not an object is wrapped as {"_raw": "<the original string>"}.
 */
function toolInput(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: fall through to the wrapper.
  }
  return { _raw: args };
}

/**
 * quirk(anthropic): tool ids must match ^[a-zA-Z0-9_-]+$, while other providers mint ids with other
 * characters. The same pure mapping is applied to tool_use ids and tool_result references, so the
 * pair still matches.
 */
function toolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function joinText(content: ChatMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : ''))
    .filter((text) => text !== '')
    .join('\n');
}
