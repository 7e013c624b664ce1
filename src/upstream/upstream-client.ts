/**
 * The one outbound HTTP client. One keep-alive connection pool per provider, with that provider's
 * timeouts: connect, first byte (response headers) and idle between body chunks. Requests are
 * aborted with the client's signal, so a caller that goes away cancels the upstream at once.
 *
 * A pool never queues one request behind another: when every connection of a pool is busy, a request
 * waits for one to free, so a single account holding slow streams on as many connections would delay
 * every other account's calls to that provider (issue 20: 2.8 s for a 5 ms call behind 256 held streams).
 * The fair share is the per-account in-flight cap at admission; the pool only has to be large enough
 * not to be the bottleneck, so it is sized like the listener (`listen.maxConnections` client connections
 * per worker), which already bounds how many requests can be in flight at once.
 */
import { createBoundedCache } from '../core/bounded-cache.js';
import { Agent, errors } from 'undici';
import type { ProviderConfig } from '../config/types.js';
import type { UpstreamRequest } from './upstream-request.js';
import { UpstreamCall, type UpstreamResponse } from './upstream-call.js';

export type { UpstreamResponse };

/** Why a request produced no HTTP response at all. */
export class UpstreamTransportError extends Error {
  constructor(
    readonly reason: 'connect_timeout' | 'first_byte_timeout' | 'idle_timeout' | 'connection_error' | 'aborted',
    options?: { cause?: unknown },
  ) {
    super(`upstream ${reason.replaceAll('_', ' ')}`, options);
    this.name = 'UpstreamTransportError';
  }

  get timedOut(): boolean {
    return this.reason.endsWith('_timeout');
  }
}

export interface UpstreamClient {
  send(provider: ProviderConfig, request: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * An upstream URL split as undici wants it. The URLs are few (a provider's base URL and a path, per
 * model for Gemini), so each is parsed once rather than by `new URL` on every call.
 */
const splitUrls = createBoundedCache<string, { origin: string; path: string }>({ entries: 1000 });
function splitUrl(href: string): { origin: string; path: string } {
  let split = splitUrls.get(href);
  if (!split) {
    const url = new URL(href);
    splitUrls.set(href, (split = { origin: url.origin, path: url.pathname + url.search }));
  }
  return split;
}

export interface UpstreamClientOptions {
  /** Connections one provider's pool may open at once; more wait for a free one. */
  connectionsPerProvider: number;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const pools = new Map<string, Agent>();
  const poolFor = (provider: ProviderConfig): Agent => {
    let pool = pools.get(provider.id);
    if (!pool) {
      pool = new Agent({
        connect: { timeout: provider.timeouts.connectMs },
        headersTimeout: provider.timeouts.firstByteMs,
        bodyTimeout: provider.timeouts.idleMs,
        keepAliveTimeout: 30_000,
        connections: options.connectionsPerProvider,
        // Bounds what one upstream answer may cost us (a long streamed generation is a few MB).
        maxResponseSize: MAX_RESPONSE_BYTES,
      });
      pools.set(provider.id, pool);
    }
    return pool;
  };

  return {
    send(provider, request, signal) {
      // undici's dispatch API with one handler object per call (upstream-call.ts), rather than
      // undici.request's Readable body: less CPU per call, a third less per stream (bench/README.md).
      // undici.request in turn replaced ofetch over fetch, which cost more than twice as much per call
      // and fell to 0.53x direct throughput at 128 connections.
      if (signal.aborted) return Promise.reject(classify(new errors.RequestAbortedError(), signal));
      const call = new UpstreamCall(signal, classify);
      const started = call.started();
      try {
        const { origin, path } = splitUrl(request.url);
        poolFor(provider).dispatch({ origin, path, method: 'POST', headers: request.headers, body: request.body }, call);
      } catch (error) {
        call.fail(error);
      }
      return started;
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}

function classify(error: unknown, signal: AbortSignal): UpstreamTransportError {
  if (signal.aborted) return new UpstreamTransportError('aborted', { cause: error });
  const code = errorCode(error);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new UpstreamTransportError('connect_timeout', { cause: error });
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new UpstreamTransportError('first_byte_timeout', { cause: error });
  if (code === 'UND_ERR_BODY_TIMEOUT') return new UpstreamTransportError('idle_timeout', { cause: error });
  return new UpstreamTransportError('connection_error', { cause: error });
}

/** The system or undici code under an error (ECONNREFUSED, ENOTFOUND, a TLS code), if any. */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

