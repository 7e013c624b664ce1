/**
 * /v1/messages' stream: Anthropic's typed events (`event: <type>` then `data: <event>`). message_start
 * holds the prompt's usage, message_delta the cumulative rest (it may restate the input) and the stop
 * reason, so the answer's usage is known, and shown with its cost, at message_delta. Failures are
 * Anthropic's in-stream `error` event, never a clean message_stop: the SDK and Claude Code raise it.
 */
import type { RouterError } from '../../core/errors.js';
import type { MessagesStreamEvent, MessagesUsage } from '../../formats/anthropic-messages.js';
import type { MessagesStreamOutcome } from '../../routing/messages-attempts.js';
import { tokenUsageFromMessages } from '../../translators/messages/messages-token-usage.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { TokenUsage } from '../../core/token-usage.js';
import { messagesErrorBody, upstreamErrorType } from '../send-messages-error.js';
import type { ClientStreamEncoder, StreamTarget } from './client-stream-encoder.js';

export class MessagesStreamEncoder implements ClientStreamEncoder<MessagesStreamEvent, MessagesStreamOutcome> {
  /** The answer's usage so far: message_start's, then each message_delta's numbers over it. */
  #usage: Partial<MessagesUsage> = {};

  constructor(readonly target: StreamTarget) {}

  frame(item: MessagesStreamEvent): Promise<void> | undefined {
    if (item.type === 'message_start') this.#usage = { ...(item.message as { usage?: MessagesUsage } | undefined)?.usage };
    else if (item.type === 'message_delta') this.#delta(item);
    return this.target.writer.send(item, item.type);
  }

  async failure(failure: UpstreamFailure, stream: MessagesStreamOutcome): Promise<void> {
    for (const item of stream.fail({ type: upstreamErrorType(failure.status, failure.code), message: failure.message })) await this.frame(item);
  }

  error(error: RouterError): Promise<void> {
    const { writer, server, record } = this.target;
    return writer.send({ type: 'error', error: messagesErrorBody(error, server, record.requestId).error }, 'error');
  }

  terminator(): undefined {
    return undefined;
  }

  #delta(item: MessagesStreamEvent): void {
    const { report, record } = this.target;
    this.#usage = { ...this.#usage, ...definedNumbers(item.usage) };
    report.record(tokenUsageFromMessages(this.#usage));
    const stopReason = (item.delta as { stop_reason?: string | null } | undefined)?.stop_reason;
    if (stopReason) record.finishReason = stopReason;
    // message_delta's usage is the final, cumulative one: it carries the cost.
    const shown = report.show(item.usage as MessagesUsage | undefined, messagesUsage);
    if (shown !== undefined) item.usage = shown;
    const router = report.router();
    if (router) item.router = router;
  }
}

function definedNumbers(value: unknown): Partial<MessagesUsage> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter(([, member]) => typeof member === 'number'));
}

/** Tokens (fusion's, summed over calls) in this API's shape. quirk(anthropic): `input_tokens` leaves out the cached prompt, reported as cache reads. */
export function messagesUsage(usage: TokenUsage): MessagesUsage {
  return { input_tokens: usage.prompt - usage.cached, output_tokens: usage.completion, cache_read_input_tokens: usage.cached, cache_creation_input_tokens: 0 };
}
