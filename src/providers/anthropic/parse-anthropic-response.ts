import { UpstreamStreamError } from '../../upstream/upstream-failure.js';
import type { ChatCompletion, ChatToolCall } from '../../formats/openai-chat.js';
import { reasoningDetailsOf } from './anthropic-reasoning-details.js';
import type { AnthropicResponse, AnthropicResponseBlock } from './anthropic-types.js';
import { mapStopReason } from './map-stop-reason.js';
import { mapUsage } from './map-usage.js';

/**
 * A non-stream Anthropic message → chat.completion: text blocks joined, tool_use blocks as
 * tool_calls, thinking as the non-standard reasoning_content, and thinking and redacted_thinking
 * blocks with their signatures as reasoning_details, for the client to send back on the next turn.
 * Other block types (server tools, …) have no chat equivalent and are left out.
 */
export function parseAnthropicResponse(body: unknown, createdSeconds: number, fallbackModel: string): ChatCompletion {
  if (!isMessage(body)) {
    // Bad bytes from the upstream (its fault, so it counts against its health), not a router failure.
    throw new UpstreamStreamError({ status: 502, type: 'server_error', code: 'invalid_upstream_response', message: 'The Anthropic upstream answered with a body that is not a message.' });
  }
  const text = textOf(body.content, 'text');
  const reasoning = textOf(body.content, 'thinking');
  const toolCalls = body.content.filter((block) => block.type === 'tool_use').map(toToolCall);
  const details = reasoningDetailsOf(body.content);
  return {
    id: body.id,
    object: 'chat.completion',
    created: createdSeconds,
    model: typeof body.model === 'string' ? body.model : fallbackModel,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
          ...(details.length > 0 ? { reasoning_details: details } : {}),
        },
        finish_reason: mapStopReason(body.stop_reason),
        logprobs: null,
      },
    ],
    usage: mapUsage(body.usage ?? {}),
  };
}

function isMessage(body: unknown): body is AnthropicResponse {
  return typeof body === 'object' && body !== null && typeof (body as { id?: unknown }).id === 'string' &&
    Array.isArray((body as { content?: unknown }).content);
}

function textOf(blocks: AnthropicResponseBlock[], type: 'text' | 'thinking'): string {
  return blocks
    .filter((block) => block.type === type)
    .map((block) => (type === 'text' ? block.text : block.thinking) ?? '')
    .join('');
}

function toToolCall(block: AnthropicResponseBlock): ChatToolCall {
  return {
    id: block.id ?? '',
    type: 'function',
    function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) },
  };
}
