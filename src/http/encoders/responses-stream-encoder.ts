/**
 * /v1/responses' stream: typed events (`event: <type>` then `data: <event>`). The final response
 * (response.completed or response.incomplete) carries the usage and the answer's end; a failure after the
 * commit point ends with the stream's own response.failed (never a silent close: Codex retries one), an
 * error before the answer with an `error` event.
 */
import type { RouterError } from '../../core/errors.js';
import type { ResponseUsage } from '../../formats/openai-responses.js';
import type { ResponsesOutEvent, ResponsesStreamOutcome } from '../../routing/responses-attempts.js';
import { tokenUsageFromResponses } from '../../translators/responses/responses-token-usage.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { TokenUsage } from '../../core/token-usage.js';
import { errorBody } from '../send-error.js';
import type { ClientStreamEncoder, StreamTarget } from './client-stream-encoder.js';
import { responsesFailureCode } from './relay-committed-stream.js';

interface FinalResponse {
  status?: string;
  incomplete_details?: { reason?: string } | null;
  usage?: ResponseUsage | null;
  /** Its items: hosted tool calls among them are billed per call. */
  output?: unknown;
  router?: unknown;
}

const FINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export class ResponsesStreamEncoder implements ClientStreamEncoder<ResponsesOutEvent, ResponsesStreamOutcome> {
  constructor(readonly target: StreamTarget) {}

  frame(item: ResponsesOutEvent): Promise<void> | undefined {
    // A native upstream's own response.failed ends the answer too: its `failed` status is an error finish (insured).
    if (FINAL_EVENTS.has(item.type) && (item as { response?: unknown }).response !== null && typeof (item as { response?: unknown }).response === 'object') {
      this.#final((item as { response: FinalResponse }).response);
    }
    return this.target.writer.send(item, item.type);
  }

  async failure(failure: UpstreamFailure, stream: ResponsesStreamOutcome): Promise<void> {
    const events = stream.fail({
      code: responsesFailureCode(failure),
      message: failure.message,
      ...(failure.retryAfterSeconds !== undefined ? { retryAfterSeconds: failure.retryAfterSeconds } : {}),
    });
    for (const item of events) await this.frame(item);
  }

  error(error: RouterError): Promise<void> {
    const { error: info } = errorBody(error, this.target.server);
    return this.target.writer.send({ type: 'error', sequence_number: 0, code: info.code, message: info.message, param: info.param }, 'error');
  }

  terminator(): undefined {
    return undefined;
  }

  #final(response: FinalResponse): void {
    const { report, record } = this.target;
    report.record(tokenUsageFromResponses(response.usage, response.output));
    record.finishReason = responseFinish(response);
    const shown = report.show(response.usage, responsesUsage);
    if (shown !== undefined) response.usage = shown;
    const router = report.router();
    if (router) response.router = router;
  }
}

/** A Response's end for its receipt: its status, with the reason when incomplete (`incomplete:max_output_tokens`). */
export function responseFinish(response: unknown): string | undefined {
  const { status, incomplete_details: details } = (response ?? {}) as FinalResponse;
  if (!status) return undefined;
  return status === 'incomplete' && details?.reason ? `incomplete:${details.reason}` : status;
}

/** Tokens (fusion's, summed over calls) in this API's shape. */
export function responsesUsage(usage: TokenUsage): ResponseUsage {
  return {
    input_tokens: usage.prompt,
    input_tokens_details: { cached_tokens: usage.cached, cache_write_tokens: 0 },
    output_tokens: usage.completion,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: usage.prompt + usage.completion,
  };
}
