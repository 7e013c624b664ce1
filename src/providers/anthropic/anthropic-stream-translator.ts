import { ANTHROPIC_REASONING_FORMAT, type ChatChunkDelta, type ChatCompletionChunk, type ChatFinishReason } from '../../formats/openai-chat.js';
import type { SseEvent } from '../../upstream/sse-event.js';
import { type ChatStreamTranslator } from '../adapter.js';
import { UpstreamStreamError, truncatedStream } from '../../upstream/upstream-failure.js';
import { anthropicFailure } from './anthropic-failure.js';
import { detailOf } from './anthropic-reasoning-details.js';
import type { AnthropicStreamEventData as EventData, AnthropicUsage } from './anthropic-types.js';
import { mapStopReason } from './map-stop-reason.js';
import { mapUsage } from './map-usage.js';

/** Events that carry a payload the translator acts on; ping and unknown events are ignored. */
const HANDLED_EVENTS = new Set(['message_start', 'content_block_start', 'content_block_delta', 'message_delta', 'message_stop', 'error']);

/**
 * Anthropic stream events → chat.completion.chunk (wire-formats §6.1), one instance per request.
 * Tool calls are numbered over tool blocks only, because the chat `index` is the position in
 * `tool_calls`, not Anthropic's block position. A usage chunk (`choices: []`) is always produced at
 * message_stop; the engine decides whether the client asked for it.
 */
export class AnthropicStreamTranslator implements ChatStreamTranslator {
  #id = '';
  #model: string;
  #usage: AnthropicUsage = {};
  readonly #toolIndexOfBlock = new Map<number, number>();
  /** Anthropic block index → reasoning_details index (thinking blocks numbered apart, like tool calls). */
  readonly #detailIndexOfBlock = new Map<number, number>();
  #finishSent = false;
  #stopped = false;

  constructor(
    private readonly createdSeconds: number,
    fallbackModel: string,
  ) {
    this.#model = fallbackModel;
  }

  onEvent(event: SseEvent): ChatCompletionChunk[] {
    if (this.#stopped) return [];
    const named = event.event !== undefined && event.event !== 'message' ? event.event : undefined;
    const data = parseData(event.data);
    // quirk(anthropic): dispatch on the `event:` name like the official SDK; data.type is the fallback.
    const type = named ?? data?.type;
    if (type === undefined || !HANDLED_EVENTS.has(type)) return [];
    if (type === 'message_stop') return this.#onMessageStop();
    if (data === undefined) throw malformed(`an unreadable ${type} event`);
    switch (type) {
      case 'message_start':
        return this.#onMessageStart(data);
      case 'content_block_start':
        return this.#onBlockStart(data);
      case 'content_block_delta':
        return this.#onBlockDelta(data);
      case 'message_delta':
        return this.#onMessageDelta(data);
      default:
        throw new UpstreamStreamError(anthropicFailure(undefined, data.error));
    }
  }

  onEnd(): ChatCompletionChunk[] {
    if (this.#stopped) return [];
    // Without a stop reason the answer may be cut short; saying "stop" would hide that from the client.
    if (!this.#finishSent) throw truncatedStream('Anthropic');
    this.#stopped = true;
    return [this.#usageChunk()];
  }

  #onMessageStart(data: EventData): ChatCompletionChunk[] {
    const message = data.message ?? {};
    if (typeof message.id === 'string') this.#id = message.id;
    if (typeof message.model === 'string') this.#model = message.model;
    this.#usage = { ...message.usage };
    return [this.#chunk({ role: 'assistant', content: '' })];
  }

  #onBlockStart(data: EventData): ChatCompletionChunk[] {
    const block = data.content_block ?? {};
    if (block.type === 'tool_use') {
      const index = this.#toolIndexOfBlock.size;
      this.#toolIndexOfBlock.set(data.index ?? -1, index);
      return [this.#chunk({ tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] })];
    }
    if (block.type === 'text' && block.text) return [this.#chunk({ content: block.text })];
    if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      const index = this.#detailIndexOfBlock.size;
      this.#detailIndexOfBlock.set(data.index ?? -1, index);
      if (block.type === 'redacted_thinking') return [this.#chunk({ reasoning_details: [detailOf(block, index)!] })];
      if (block.thinking) return [this.#chunk({ reasoning_content: block.thinking, reasoning_details: [this.#detail(index, { text: block.thinking })] })];
    }
    return [];
  }

  /**
   * One stream piece of a thinking block, with its block's index, as OpenRouter streams them: the text in
   * pieces, then the signature; a client joins the pieces of one index (or sends them back as they came).
   */
  #detail(index: number, piece: { text?: string; signature?: string }): NonNullable<ChatChunkDelta['reasoning_details']>[number] {
    return { type: 'reasoning.text', ...piece, format: ANTHROPIC_REASONING_FORMAT, index };
  }

  #onBlockDelta(data: EventData): ChatCompletionChunk[] {
    const delta = data.delta ?? {};
    switch (delta.type) {
      case 'text_delta':
        return delta.text ? [this.#chunk({ content: delta.text })] : [];
      case 'thinking_delta': {
        if (!delta.thinking) return [];
        const index = this.#detailIndexOfBlock.get(data.index ?? -1);
        const details = index === undefined ? {} : { reasoning_details: [this.#detail(index, { text: delta.thinking })] };
        return [this.#chunk({ reasoning_content: delta.thinking, ...details })];
      }
      case 'signature_delta': {
        const index = this.#detailIndexOfBlock.get(data.index ?? -1);
        if (index === undefined || !delta.signature) return [];
        return [this.#chunk({ reasoning_details: [this.#detail(index, { text: '', signature: delta.signature })] })];
      }
      case 'input_json_delta': {
        const index = this.#toolIndexOfBlock.get(data.index ?? -1);
        if (index === undefined || !delta.partial_json) return [];
        return [this.#chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] })];
      }
      default:
        return [];
    }
  }

  #onMessageDelta(data: EventData): ChatCompletionChunk[] {
    // quirk(anthropic): message_delta usage is cumulative and may restate input and cache counts (and
    // the cache_creation and output_tokens_details objects).
    for (const [key, value] of Object.entries(data.usage ?? {})) {
      if (typeof value === 'number' || (typeof value === 'object' && value !== null)) this.#usage = { ...this.#usage, [key]: value };
    }
    this.#finishSent = true;
    return [this.#chunk({}, mapStopReason(data.delta?.stop_reason))];
  }

  #onMessageStop(): ChatCompletionChunk[] {
    this.#stopped = true;
    const finish = this.#finishSent ? [] : [this.#chunk({}, 'stop')];
    this.#finishSent = true;
    return [...finish, this.#usageChunk()];
  }

  #chunk(delta: ChatChunkDelta, finishReason: ChatFinishReason | null = null): ChatCompletionChunk {
    return {
      id: this.#id,
      object: 'chat.completion.chunk',
      created: this.createdSeconds,
      model: this.#model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
  }

  #usageChunk(): ChatCompletionChunk {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.createdSeconds, model: this.#model, choices: [], usage: mapUsage(this.#usage) };
  }
}

function parseData(data: string): EventData | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as EventData) : undefined;
  } catch {
    return undefined;
  }
}

function malformed(what: string): UpstreamStreamError {
  return new UpstreamStreamError({ status: 502, type: 'server_error', code: null, message: `The Anthropic upstream sent ${what}.` });
}
