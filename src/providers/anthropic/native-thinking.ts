/**
 * Thinking blocks the router issued on a translated route (translators/messages/messages-thinking.ts:
 * their signature, or a redacted block's data, is the router's encoding of another upstream's
 * reasoning) would fail Anthropic's signature check when the conversation moves to an Anthropic
 * upstream. Each becomes the Anthropic blocks it carries (a fusion writer's own signed thinking) or
 * nothing. quirk(anthropic): with thinking on, the last assistant turn must begin with a thinking block
 * when it made tool calls; if removing the router's blocks left it without one, thinking is turned off
 * for this request rather than have Anthropic refuse the turn.
 */
import { decodeReasoningDetails, isRouterCarrier } from '../../formats/reasoning-carrier.js';
import type { MessagesMessage } from '../../formats/anthropic-messages.js';
import { thinkingBlocksOf } from './anthropic-reasoning-details.js';

type Block = { type: string; signature?: unknown; data?: unknown };

export function withoutRouterThinking(body: Record<string, unknown>, messages: readonly MessagesMessage[]): void {
  if (!messages.some(carriesRouterThinking)) return;
  const cleaned = messages.map((message) => (carriesRouterThinking(message) ? { ...message, content: (message.content as Block[]).flatMap(anthropicBlocks) } : message));
  body.messages = cleaned;
  const last = cleaned.findLastIndex((message) => message.role === 'assistant');
  if (last < 0 || !carriesRouterThinking(messages[last]!)) return;
  const blocks = cleaned[last]!.content as Block[];
  const first = blocks[0]?.type;
  if (blocks.some((block) => block.type === 'tool_use') && first !== 'thinking' && first !== 'redacted_thinking') delete body.thinking;
}

function carriesRouterThinking(message: MessagesMessage): boolean {
  return message.role === 'assistant' && Array.isArray(message.content) && (message.content as Block[]).some(isRouterBlock);
}

function isRouterBlock(block: Block): boolean {
  return (block.type === 'thinking' && isRouterCarrier(block.signature)) || (block.type === 'redacted_thinking' && isRouterCarrier(block.data));
}

function anthropicBlocks(block: Block): object[] {
  if (!isRouterBlock(block)) return [block];
  return thinkingBlocksOf(decodeReasoningDetails(block.type === 'thinking' ? block.signature : block.data));
}
