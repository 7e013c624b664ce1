/**
 * /v1/chat/completions' stream: `data: <chunk>` frames with the client's model name, usage as the client
 * asked (`stream_options.include_usage`: `usage: null` on every chunk and the usage chunk at the end;
 * otherwise none), an `{"error": …}` frame for a failure, then `data: [DONE]`. A fusion answer drops the
 * writer's own usage and ends instead with one summary chunk (every call's usage, the `router` object).
 */
import type { ChatCompletionChunk, ChatUsage } from '../../formats/openai-chat.js';
import type { TokenUsage } from '../../core/token-usage.js';
import type { RouterError } from '../../core/errors.js';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { errorBody } from '../send-error.js';
import type { ClientStreamEncoder, StreamTarget } from './client-stream-encoder.js';
import { INTERRUPTED_CODE } from './relay-committed-stream.js';

export interface ChatStreamOptions {
  /** The model name the client sees (its route profile). */
  model: string;
  /** The request's `stream_options.include_usage`. */
  includeUsage: boolean;
}

export class ChatStreamEncoder implements ClientStreamEncoder<ChatCompletionChunk> {
  /** The first chunk's id and time, which a fusion summary chunk repeats. */
  #firstId: string | undefined;
  #firstCreated = 0;

  constructor(
    readonly target: StreamTarget,
    private readonly options: ChatStreamOptions,
  ) {}

  frame(chunk: ChatCompletionChunk): Promise<void> | undefined {
    const { report, record, writer } = this.target;
    chunk.model = this.options.model;
    const finished = chunk.choices[0]?.finish_reason;
    if (finished) record.finishReason = finished;
    if (report.summarizes) {
      if (this.#firstId === undefined) {
        this.#firstId = chunk.id;
        this.#firstCreated = chunk.created;
      }
      if (chunk.usage) report.record(tokenUsageFromChat(chunk.usage));
      delete chunk.usage;
      return chunk.choices.length > 0 ? writer.send(chunk) : undefined;
    }
    const { includeUsage } = this.options;
    if (chunk.usage) {
      report.record(tokenUsageFromChat(chunk.usage));
      if (includeUsage) report.show(chunk.usage, chatUsage);
      // The upstream's usage chunk, which the client did not ask for.
      else if (chunk.choices.length === 0) return undefined;
    }
    if (includeUsage) chunk.usage ??= null;
    else delete chunk.usage;
    return writer.send(chunk);
  }

  failure(failure: UpstreamFailure): Promise<void> {
    const code = failure.code ?? INTERRUPTED_CODE;
    return this.target.writer.send({ error: { message: failure.message, type: failure.type, code, param: null } });
  }

  error(error: RouterError): Promise<void> {
    return this.target.writer.send(errorBody(error, this.target.server));
  }

  async terminator(completed: boolean): Promise<void> {
    const { writer, report, record, clock } = this.target;
    const router = completed ? report.router() : undefined;
    if (router) {
      await writer.send({
        id: this.#firstId ?? `chatcmpl-${record.requestId}`,
        object: 'chat.completion.chunk',
        created: this.#firstId === undefined ? Math.floor(clock.now() / 1000) : this.#firstCreated,
        model: this.options.model,
        choices: [],
        ...(this.options.includeUsage ? { usage: report.show(undefined, chatUsage) } : {}),
        router,
      });
    }
    return writer.done();
  }
}

/** Tokens (fusion's, summed over calls) in this API's shape. */
export function chatUsage(usage: TokenUsage): ChatUsage {
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cached },
    completion_tokens_details: { reasoning_tokens: usage.reasoning },
  };
}
