/** A ServerResponse stand-in that keeps what an SseWriter writes, and the pieces every encoder test builds. */
import type { ServerResponse } from 'node:http';
import type { ServerConfig } from '../../../src/config/types.js';
import type { StreamRecord, StreamTarget, UsageReport } from '../../../src/http/encoders/client-stream-encoder.js';
import { ServedUsage } from '../../../src/http/encoders/served-usage.js';
import { SseWriter } from '../../../src/http/sse-writer.js';
import type { RoutedMeta } from '../../../src/routing/failover.js';
import type { PriceBook } from '../../../src/usage/model-prices.js';

export interface CapturedResponse {
  res: ServerResponse;
  /** Everything written, in order (headers apart). */
  body(): string;
  status(): number | undefined;
  headers(): Record<string, string> | undefined;
}

export function capturedResponse(): CapturedResponse {
  let body = '';
  let status: number | undefined;
  let headers: Record<string, string> | undefined;
  const res = {
    destroyed: false,
    writableEnded: false,
    writableNeedDrain: false,
    cork() {},
    uncork() {},
    writeHead(code: number, sent: Record<string, string>) {
      status = code;
      headers = sent;
    },
    flushHeaders() {},
    write(chunk: string) {
      body += chunk;
      return true;
    },
    end(chunk?: string) {
      if (chunk) body += chunk;
      res.writableEnded = true;
    },
    on() {},
    off() {},
  };
  return { res: res as unknown as ServerResponse, body: () => body, status: () => status, headers: () => headers };
}

export const SERVER = { baseUrl: 'http://router.test', docsUrl: 'http://router.test/docs', supportUrl: 'http://router.test/support', appUrl: 'http://router.test/app' } as unknown as ServerConfig;

export const SERVED: RoutedMeta = { providerId: 'openai', upstreamModel: 'gpt-4.1', retryCount: 1, credentialSource: 'byok', attempts: [] };

const NO_PRICES: PriceBook = { priceOf: () => undefined } as unknown as PriceBook;

export function newRecord(): StreamRecord {
  return { requestId: 'req_1' };
}

export function target(response: CapturedResponse, record: StreamRecord, report: UsageReport = new ServedUsage(record, NO_PRICES, false)): StreamTarget {
  return { writer: new SseWriter(response.res), record, report, server: SERVER, clock: { now: () => 1_700_000_000_000 } };
}

/** `data:` payloads of a stream, parsed, with their event names; comments apart. */
export function parseSse(text: string): { events: Array<{ event?: string; data: string }>; comments: string[] } {
  const events: Array<{ event?: string; data: string }> = [];
  const comments: string[] = [];
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('event: ')) event = line.slice('event: '.length);
      else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
      else throw new Error(`not an SSE line: ${JSON.stringify(line)}`);
    }
    if (data.length > 0) events.push({ ...(event === undefined ? {} : { event }), data: data.join('\n') });
  }
  return { events, comments };
}

/** A committed stream of `head` then `tail`, the tail failing with `failure` when given; records its release. */
export function committed<T>(head: T[], tail: T[], failure?: Error): { head: T[]; tail: AsyncIterator<T>; released: () => boolean } {
  let released = false;
  async function* rest(): AsyncGenerator<T> {
    try {
      yield* tail;
      if (failure) throw failure;
    } finally {
      released = true;
    }
  }
  return { head, tail: rest(), released: () => released };
}
