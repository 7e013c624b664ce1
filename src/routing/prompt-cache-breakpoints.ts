/**
 * `promptCaching: auto` (routes.yaml): the request as it would be with cache breakpoints on its stable
 * prefix, the way OpenRouter's users place them by hand: on the last system (or developer) message and on
 * the last function tool, so the system prompt and the tool list are read from Anthropic's cache on the
 * next call (at a tenth of the input price). A request that already carries a breakpoint of its own is
 * left exactly as the client made it; so is one with neither a system prompt nor tools. Adapters of
 * providers without breakpoints drop `cache_control` (their caching is automatic or absent).
 */
import type { ChatFunctionTool, ChatMessage, ChatRequest, ChatTool } from '../formats/openai-chat.js';

const EPHEMERAL = { type: 'ephemeral' } as const;

export function withCacheBreakpoints(chat: ChatRequest): ChatRequest {
  if (hasBreakpoint(chat)) return chat;
  const lastSystem = chat.messages.findLastIndex((message) => message.role === 'system' || message.role === 'developer');
  const lastTool = (chat.tools ?? []).findLastIndex((tool) => tool.type === 'function');
  if (lastSystem < 0 && lastTool < 0) return chat;
  const messages = lastSystem < 0 ? chat.messages : chat.messages.map((message, i) => (i === lastSystem ? { ...message, cache_control: EPHEMERAL } : message));
  const tools = lastTool < 0 ? chat.tools : chat.tools!.map((tool, i) => (i === lastTool ? { ...(tool as ChatFunctionTool), cache_control: EPHEMERAL } : tool));
  return { ...chat, messages, ...(tools ? { tools } : {}) };
}

/** The client placed a breakpoint anywhere: on a message, a content part or a tool. */
export function hasBreakpoint(chat: ChatRequest): boolean {
  return chat.messages.some(messageHasBreakpoint) || (chat.tools ?? []).some((tool: ChatTool) => isRecord(tool.cache_control));
}

export function messageHasBreakpoint(message: ChatMessage): boolean {
  if (isRecord(message.cache_control)) return true;
  return Array.isArray(message.content) && message.content.some((part) => isRecord((part as { cache_control?: unknown }).cache_control));
}

function isRecord(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}
