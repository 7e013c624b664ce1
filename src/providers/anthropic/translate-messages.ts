import { ANTHROPIC_TOOL_USE_ID, toolCallIdFor } from '../tool-call-ids.js';
import { RouterError } from '../../core/errors.js';
import type { CacheControl, ChatMessage } from '../../formats/openai-chat.js';
import { thinkingBlocksOf } from './anthropic-reasoning-details.js';
import type {
  AnthropicAssistantBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicUserBlock,
} from './anthropic-types.js';
import { translateUserContent } from './translate-user-content.js';

export interface TranslatedMessages {
  /**
   * All system and developer text, in order; undefined when there is none. Text blocks when the client
   * put a cache breakpoint (`cache_control`) on any of it, so the breakpoint stays where it was put.
   */
  system: string | AnthropicTextBlock[] | undefined;
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
  const system: AnthropicTextBlock[] = [];
  const turns: AnthropicMessage[] = [];
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...withMessageBreakpoint(systemBlocks(message.content), message.cache_control));
        return;
      case 'user':
        return appendUser(turns, withMessageBreakpoint(translateUserContent(message.content, param), message.cache_control));
      case 'tool':
        return appendUser(turns, withMessageBreakpoint([toolResult(message, param)], message.cache_control));
      case 'assistant':
        return appendAssistant(turns, withMessageBreakpoint(assistantBlocks(message), message.cache_control));
      default:
        throw new RouterError(
          'unsupported_parameter',
          `Messages with role "${String(message.role)}" cannot be sent to this route; use tool messages instead.`,
          { param: `${param}.role` },
        );
    }
  });
  return { system: systemField(system), messages: turns };
}

function systemBlocks(content: ChatMessage['content']): AnthropicTextBlock[] {
  if (typeof content !== 'string' && Array.isArray(content)) {
    return content.flatMap((part) => {
      const text = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : '';
      if (text === '') return [];
      return [part.type === 'text' && part.cache_control ? { type: 'text' as const, text, cache_control: part.cache_control } : { type: 'text' as const, text }];
    });
  }
  const text = joinText(content);
  return text === '' ? [] : [{ type: 'text', text }];
}

function systemField(blocks: AnthropicTextBlock[]): TranslatedMessages['system'] {
  if (blocks.length === 0) return undefined;
  if (blocks.some((block) => block.cache_control)) return blocks;
  return blocks.map((block) => block.text).join('\n\n');
}

/** A breakpoint put on a whole message (OpenRouter allows it there) goes on its last block, where Anthropic reads it. */
function withMessageBreakpoint<T extends AnthropicUserBlock | AnthropicAssistantBlock>(blocks: T[], cacheControl: CacheControl | undefined): T[] {
  const last = blocks.at(-1);
  if (!cacheControl || !last || last.type === 'thinking' || last.type === 'redacted_thinking') return blocks;
  return [...blocks.slice(0, -1), { ...last, cache_control: cacheControl }];
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
  // Thinking first: Anthropic requires the signed thinking ahead of the turn's text and tool_use.
  const blocks: AnthropicAssistantBlock[] = thinkingBlocksOf(message.reasoning_details);
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
/** Ids of another provider or client that break Anthropic's pattern are mapped (tool-call-ids.ts), the same for a call and its result. */
function toolUseId(id: string): string {
  return toolCallIdFor(id, ANTHROPIC_TOOL_USE_ID);
}

function joinText(content: ChatMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : ''))
    .filter((text) => text !== '')
    .join('\n');
}
