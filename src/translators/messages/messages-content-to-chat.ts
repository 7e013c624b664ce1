/**
 * Messages `system` and `messages[]` → chat messages. Anthropic keeps tool results inside the next user
 * turn (before its text) while chat wants one `tool` message per result right after the assistant's
 * tool calls, so a user turn becomes its tool messages first, then the rest of its content.
 * A `cache_control` breakpoint on a block becomes the breakpoint of the chat message the block lands in
 * (an Anthropic adapter puts it on that message's last block, where Claude Code puts its own); adapters
 * of providers without breakpoints drop it.
 */
import { RouterError } from '../../core/errors.js';
import type { CacheControl, ChatContentPart, ChatMessage, ChatToolCall } from '../../formats/openai-chat.js';
import type {
  MessagesBlock,
  MessagesImageBlock,
  MessagesMessage,
  MessagesOtherBlock,
  MessagesRequest,
  MessagesToolResultBlock,
} from '../../formats/anthropic-messages.js';
import { reasoningOfBlocks } from './messages-thinking.js';

type AnyBlock = MessagesBlock | MessagesOtherBlock;

export function systemToChat(system: MessagesRequest['system']): ChatMessage[] {
  if (system === undefined || system === null) return [];
  const text = typeof system === 'string' ? system : system.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  if (text === '') return [];
  return [withBreakpoint({ role: 'system', content: text }, typeof system === 'string' ? [] : system)];
}

export function messagesToChat(messages: readonly MessagesMessage[]): ChatMessage[] {
  return messages.flatMap((message, index) => {
    const blocks: AnyBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    switch (message.role) {
      case 'assistant':
        return [assistantToChat(blocks)];
      case 'user':
        return userToChat(blocks, index);
      case 'system':
        // Claude Code may open with a system-role message; it is instructions, so it joins the system prompt.
        return [{ role: 'system', content: textOf(blocks) }];
    }
  });
}

function assistantToChat(blocks: readonly AnyBlock[]): ChatMessage {
  const message: ChatMessage = { role: 'assistant', content: textOf(blocks) || null };
  const toolCalls: ChatToolCall[] = [];
  for (const block of blocks) {
    if (block.type === 'tool_use') {
      const { id, name, input } = block as { id: string; name: string; input: unknown };
      toolCalls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(input ?? {}) } });
    }
  }
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const reasoning = reasoningOfBlocks(blocks);
  if (reasoning.text !== '') message.reasoning_content = reasoning.text;
  if (reasoning.details.length > 0) message.reasoning_details = reasoning.details;
  return withBreakpoint(message, blocks);
}

function userToChat(blocks: readonly AnyBlock[], messageIndex: number): ChatMessage[] {
  const toolMessages: ChatMessage[] = [];
  const parts: ChatContentPart[] = [];
  for (const [blockIndex, block] of blocks.entries()) {
    if (block.type === 'tool_result') {
      const result = toolResultToChat(block as MessagesToolResultBlock);
      toolMessages.push(result.message);
      // Chat tool messages hold text only: images a tool returned follow as the user's own content.
      parts.push(...result.images);
      continue;
    }
    const part = userPartOf(block, `messages[${messageIndex}].content[${blockIndex}]`);
    if (part) parts.push(part);
  }
  if (parts.length === 0) return toolMessages;
  const onlyText = parts.every((part) => part.type === 'text');
  const content = onlyText ? parts.map((part) => (part as { text: string }).text).join('\n') : parts;
  return [...toolMessages, withBreakpoint({ role: 'user', content }, blocks.filter((block) => block.type !== 'tool_result'))];
}

function toolResultToChat(block: MessagesToolResultBlock): { message: ChatMessage; images: ChatContentPart[] } {
  const inner: AnyBlock[] = typeof block.content === 'string' ? [{ type: 'text', text: block.content }] : (block.content ?? []);
  const images = inner.filter((item) => item.type === 'image').map((item) => imagePart(item as MessagesImageBlock));
  const text = inner.map(toolResultText).filter((piece) => piece !== '').join('\n');
  // The upstream must still be told the call failed; chat has no is_error flag.
  const content = block.is_error === true ? `Error: ${text}` : text;
  return { message: withBreakpoint({ role: 'tool', tool_call_id: block.tool_use_id, content }, [block]), images };
}

/** The message with the last breakpoint its blocks carry, or as it is when they carry none. */
function withBreakpoint(message: ChatMessage, blocks: readonly object[]): ChatMessage {
  const breakpoint = (blocks as ReadonlyArray<{ cache_control?: unknown }>).findLast((block) => isCacheControl(block.cache_control))?.cache_control as CacheControl | undefined;
  return breakpoint === undefined ? message : { ...message, cache_control: breakpoint };
}

function isCacheControl(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'ephemeral';
}

/** `tool_reference` (Claude Code's deferred tools) names a tool the model may now call: said as text. */
function toolResultText(block: AnyBlock): string {
  if (block.type === 'text') return (block as { text: string }).text;
  if (block.type === 'tool_reference') return `Tool available: ${String((block as { tool_name?: unknown }).tool_name ?? '')}`;
  return '';
}

function userPartOf(block: AnyBlock, param: string): ChatContentPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: (block as { text: string }).text };
    case 'image':
      return imagePart(block as MessagesImageBlock);
    case 'document':
      return documentPart(block, param);
    default:
      // Thinking replays, server-tool results and future block types have no chat equivalent.
      return undefined;
  }
}

function imagePart(block: MessagesImageBlock): ChatContentPart {
  const source = block.source;
  const url = source.type === 'url' ? source.url : `data:${source.media_type};base64,${source.data}`;
  return { type: 'image_url', image_url: { url } };
}

function documentPart(block: AnyBlock, param: string): ChatContentPart {
  const source = (block as { source?: { type?: string; media_type?: string; data?: string } }).source;
  if (source?.type === 'text' && typeof source.data === 'string') return { type: 'text', text: source.data };
  if (source?.type !== 'base64' || typeof source.data !== 'string') {
    throw new RouterError('unsupported_parameter', 'Documents are accepted as base64 data or plain text on this route.', { param: `${param}.source` });
  }
  const title = (block as { title?: unknown }).title;
  return { type: 'file', file: { file_data: `data:${source.media_type ?? 'application/pdf'};base64,${source.data}`, ...(typeof title === 'string' ? { filename: title } : {}) } };
}

function textOf(blocks: readonly AnyBlock[]): string {
  return blocks
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('');
}
