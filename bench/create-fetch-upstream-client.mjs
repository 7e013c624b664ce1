/**
 * The router's upstream client as it was before it moved to undici.request (src/upstream/upstream-client.ts
 * at 75cc640): ofetch over Node's fetch with an undici Agent per provider, the body read back through
 * WHATWG streams. Kept here only as the reference the benchmark compares the shipped client against
 * (bench/compare-upstream-clients.mjs); it throws the UpstreamTransportError class from dist/, so the
 * router's instanceof checks hold when it is injected into the real router.
 */
import { ofetch } from 'ofetch';
import { Agent } from 'undici';

/** @param {typeof import('../dist/upstream/upstream-client.js').UpstreamTransportError} UpstreamTransportError */
export function createFetchUpstreamClient(UpstreamTransportError) {
  const pools = new Map();
  const poolFor = (provider) => {
    let pool = pools.get(provider.id);
    if (!pool) {
      pool = new Agent({
        connect: { timeout: provider.timeouts.connectMs },
        headersTimeout: provider.timeouts.firstByteMs,
        bodyTimeout: provider.timeouts.idleMs,
        keepAliveTimeout: 30_000,
        connections: 256,
      });
      pools.set(provider.id, pool);
    }
    return pool;
  };

  const classify = (error, signal) => {
    if (signal.aborted) return new UpstreamTransportError('aborted', { cause: error });
    const code = error?.code ?? error?.cause?.code;
    const reason = { UND_ERR_CONNECT_TIMEOUT: 'connect_timeout', UND_ERR_HEADERS_TIMEOUT: 'first_byte_timeout', UND_ERR_BODY_TIMEOUT: 'idle_timeout' }[code];
    return new UpstreamTransportError(reason ?? 'connection_error', { cause: error });
  };

  async function* guardBody(body, signal) {
    try {
      for await (const chunk of body) yield chunk;
    } catch (error) {
      throw classify(error, signal);
    }
  }

  return {
    async send(provider, request, signal) {
      try {
        const response = await ofetch.raw(request.url, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
          responseType: 'stream',
          ignoreResponseError: true,
          retry: 0,
          signal,
          dispatcher: poolFor(provider),
        });
        const body = response._data ?? new ReadableStream({ start: (controller) => controller.close() });
        return { status: response.status, headers: response.headers, body: guardBody(body, signal), text: () => new Response(body).text() };
      } catch (error) {
        throw classify(error, signal);
      }
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}
