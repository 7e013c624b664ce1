/**
 * One client API's stream encoding (chat completions, Responses, Messages) behind one interface, so that
 * serve-client-stream.ts serves any committed stream, a single model's or fusion's, through any of them:
 * the encoder says how an item, a mid-stream failure, an error before the answer and the end are written;
 * the serving (headers, first byte, relay, keep-alives, failure accounting) is written once.
 */
import type { ServerResponse } from 'node:http';
import type { ServerConfig } from '../../config/types.js';
import type { Clock } from '../../core/clock.js';
import type { RouterError } from '../../core/errors.js';
import type { TokenUsage } from '../../core/token-usage.js';
import type { RoutedMeta } from '../../routing/failover.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { SseWriter } from '../sse-writer.js';

/**
 * The fields of the request's record a stream fills (and its id, which it reads). Declared here, not
 * taken from the pipeline's context type, so that any record with these fields can be served.
 */
export interface StreamRecord {
  readonly requestId: string;
  /** Which upstream served the answer (its routing headers and its price). */
  served?: RoutedMeta;
  /** Tokens the served call reported; null when it reported none. */
  usage?: TokenUsage | null;
  firstByteAt?: number;
  finishReason?: string;
  /** The contract error code of a failure reported in-band, after the status was sent. */
  errorCode?: string;
}

/**
 * How a stream's usage reaches the request's record and the client. A single model's answer shows its
 * upstream's usage with the cost the ledger will record (served-usage.ts); a fusion answer shows every
 * call's summed and the `router` object (fusion/fusion-report.ts). Encoders call these once per answer
 * (at its last event), never per chunk.
 */
export interface UsageReport {
  /** True for fusion: the client is shown the request's summary (every call's usage, the `router` object), not the served call's usage. */
  readonly summarizes: boolean;
  /** The served call's tokens as its upstream reported them (null: it reported none), for the ledger. */
  record(tokens: TokenUsage | null): void;
  /** The usage object the client is shown instead of `reported` (the same object, its cost added, unless summarizing). */
  show<Usage extends object>(reported: Usage | null | undefined, summed: (total: TokenUsage) => Usage): Usage | null | undefined;
  /** The `router` extension object, when summarizing. */
  router(): object | undefined;
}

/** Where an encoder writes and what it fills: one per streamed request. */
export interface StreamTarget {
  writer: SseWriter;
  record: StreamRecord;
  /** How the answer's usage is recorded and shown: the served call's own, or fusion's summary. */
  report: UsageReport;
  server: ServerConfig;
  clock: Clock;
}

/** A stream that has committed: the items read before the commit point, then the rest as they come. */
export interface CommittedItems<Item> {
  head: Item[];
  tail: AsyncIterator<Item>;
}

export interface ClientStreamEncoder<Item, Stream extends CommittedItems<Item> = CommittedItems<Item>> {
  readonly target: StreamTarget;
  /**
   * Writes one item, recording what it says (usage, finish). Not async: it hands back the writer's
   * promise, one shared settled promise unless the client is slow, so a chunk costs no promise of its own.
   */
  frame(item: Item): Promise<void> | undefined;
  /** A failure after the commit point, in the API's in-stream error shape (the status is already sent). */
  failure(failure: UpstreamFailure, stream: Stream): Promise<void>;
  /** An error before the answer began, once keep-alives had opened the stream: only in-band is left. */
  error(error: RouterError): Promise<void>;
  /** What ends the stream (`completed`: no failure was reported): chat's `[DONE]`; nothing for typed events. */
  terminator(completed: boolean): Promise<void> | undefined;
}

/** The encoders' shared deps, as the routes hold them. */
export interface StreamDeps {
  config: { server: ServerConfig };
  clock: Clock;
}

export function streamTarget(res: ServerResponse, record: StreamRecord, report: UsageReport, deps: StreamDeps): StreamTarget {
  return { writer: new SseWriter(res), record, report, server: deps.config.server, clock: deps.clock };
}
