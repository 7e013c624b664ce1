/**
 * Chat chunks → Anthropic's stream grammar, one instance per request: `message_start`, `ping`, then
 * content blocks in order (`content_block_start`, deltas, `content_block_stop`; one block open at a
 * time), then `message_delta` with the stop reason and usage, and `message_stop`. A chat stream may
 * interleave text and tool calls; each change of kind closes the open block and starts the next one.
 * A thinking block ends with a `signature_delta`: the router's encoding of the reasoning details that
 * came while it was open (messages-thinking.ts). Details arriving with no thinking block open (Gemini
 * signs a call after its text) come as a redacted_thinking block of their own, where they arrive.
 */
import type { ChatCompletionChunk, ChatFinishReason, ChatUsage, ReasoningDetail } from '../../formats/openai-chat.js';
import { mergeReasoningDetails } from '../../formats/reasoning-carrier.js';
import type { MessagesStreamEvent } from '../../formats/anthropic-messages.js';
import type { MessageContext } from './chat-to-message.js';
import { chatFinishToStopReason, chatUsageToMessages } from './chat-usage-to-messages.js';
import { matchedStopSequence } from './matched-stop-sequence.js';
import { thinkingSignature } from './messages-thinking.js';

type OpenBlock = { kind: 'text' } | { kind: 'thinking' } | { kind: 'redacted' } | { kind: 'tool'; toolIndex: number };

export interface MessagesStreamSynthesizer {
  /** message_start and a first ping. */
  start(): MessagesStreamEvent[];
  onChunk(chunk: ChatCompletionChunk): MessagesStreamEvent[];
  /** The chat stream ended cleanly: close the open block, report the stop reason and usage. */
  finish(): MessagesStreamEvent[];
  /** The in-stream error that ends a stream cut after the commit point (never a clean message_stop). */
  fail(failure: { type: string; message: string }): MessagesStreamEvent[];
}

export function createMessagesStreamSynthesizer(context: MessageContext): MessagesStreamSynthesizer {
  let blockIndex = -1;
  let open: OpenBlock | undefined;
  let finish: ChatFinishReason | null = null;
  let stopSequence: string | null = null;
  let usage: ChatUsage | undefined;
  const toolsSeen = new Set<number>();
  /** Details that came while the open thinking block was open: its signature. */
  let signed: ReasoningDetail[] = [];

  const close = (): MessagesStreamEvent[] => {
    if (!open) return [];
    const events: MessagesStreamEvent[] = [];
    if (open.kind === 'thinking') {
      events.push(delta({ type: 'signature_delta', signature: thinkingSignature(mergeReasoningDetails(signed)) }));
      signed = [];
    }
    open = undefined;
    events.push({ type: 'content_block_stop', index: blockIndex });
    return events;
  };
  const startBlock = (block: OpenBlock, contentBlock: Record<string, unknown>): MessagesStreamEvent[] => {
    const events = close();
    open = block;
    blockIndex += 1;
    events.push({ type: 'content_block_start', index: blockIndex, content_block: contentBlock });
    return events;
  };
  const delta = (body: Record<string, unknown>): MessagesStreamEvent => ({ type: 'content_block_delta', index: blockIndex, delta: body });

  const onText = (text: string): MessagesStreamEvent[] => {
    const events = open?.kind === 'text' ? [] : startBlock({ kind: 'text' }, { type: 'text', text: '' });
    events.push(delta({ type: 'text_delta', text }));
    return events;
  };
  const onThinking = (thinking: string): MessagesStreamEvent[] => {
    const events = open?.kind === 'thinking' ? [] : startBlock({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' });
    events.push(delta({ type: 'thinking_delta', thinking }));
    return events;
  };
  const onDetails = (details: readonly ReasoningDetail[]): MessagesStreamEvent[] => {
    if (open?.kind === 'thinking') {
      signed.push(...details);
      return [];
    }
    const events = startBlock({ kind: 'redacted' }, { type: 'redacted_thinking', data: thinkingSignature(mergeReasoningDetails(details)) });
    events.push(...close());
    return events;
  };
  const onToolCall = (call: NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number]): MessagesStreamEvent[] => {
    const events: MessagesStreamEvent[] = [];
    const current = open?.kind === 'tool' && open.toolIndex === call.index;
    if (!current) {
      // A fragment of a call whose block already closed cannot be placed; a new call opens its block.
      if (toolsSeen.has(call.index)) return [];
      toolsSeen.add(call.index);
      const block = { type: 'tool_use', id: call.id ?? `toolu_router_${call.index}`, name: call.function?.name ?? '', input: {} };
      events.push(...startBlock({ kind: 'tool', toolIndex: call.index }, block));
    }
    const fragment = call.function?.arguments;
    if (fragment) events.push(delta({ type: 'input_json_delta', partial_json: fragment }));
    return events;
  };

  return {
    start: () => [
      {
        type: 'message_start',
        message: {
          id: context.id,
          type: 'message',
          role: 'assistant',
          model: context.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      },
      { type: 'ping' },
    ],
    onChunk(chunk) {
      if (chunk.usage) usage = chunk.usage;
      const events: MessagesStreamEvent[] = [];
      for (const choice of chunk.choices) {
        const { reasoning_content: reasoning, reasoning_details: details, content, refusal, tool_calls: toolCalls } = choice.delta;
        if (reasoning) events.push(...onThinking(reasoning));
        if (details && details.length > 0) events.push(...onDetails(details));
        if (content) events.push(...onText(content));
        if (refusal) events.push(...onText(refusal));
        for (const call of toolCalls ?? []) events.push(...onToolCall(call));
        if (choice.finish_reason) {
          finish = choice.finish_reason;
          stopSequence = matchedStopSequence(choice, context.stopSequences);
        }
      }
      return events;
    },
    finish: () => [
      ...close(),
      {
        type: 'message_delta',
        delta: { stop_reason: stopSequence === null ? chatFinishToStopReason(finish) : 'stop_sequence', stop_sequence: stopSequence },
        usage: chatUsageToMessages(usage),
      },
      { type: 'message_stop' },
    ],
    fail: (failure) => [{ type: 'error', error: { type: failure.type, message: failure.message } }],
  };
}
