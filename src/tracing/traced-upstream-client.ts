/**
 * The upstream client as tracing sees it (wrapped by the composition root only when tracing is on):
 * each call carries its attempt span's `traceparent` (and the client's `tracestate`) to the provider,
 * and the attempt span gets the provider's host, status and time to first byte (response headers).
 */
import type { ProviderConfig } from '../config/types.js';
import type { UpstreamRequest } from '../providers/adapter.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { HTTP_RESPONSE_STATUS_CODE, ROUTER, SERVER_ADDRESS, SERVER_PORT } from './span-attributes.js';
import type { Tracing } from './tracing.js';

export function traceUpstreamClient(client: UpstreamClient, tracing: Tracing): UpstreamClient {
  const hosts = new Map<string, { address: string; port: number }>();
  return {
    async send(provider: ProviderConfig, request: UpstreamRequest, signal: AbortSignal) {
      const span = tracing.activeSpan();
      if (!span) return client.send(provider, request, signal);
      const headers = { ...request.headers };
      tracing.inject(headers);
      const startedAt = performance.now();
      const response = await client.send(provider, { ...request, headers }, signal);
      span.setAttributes({
        ...hostOf(hosts, provider.baseUrl),
        [HTTP_RESPONSE_STATUS_CODE]: response.status,
        [ROUTER.timeToFirstByteMs]: Math.round(performance.now() - startedAt),
      });
      return response;
    },
    close: () => client.close(),
  };
}

/** server.address and server.port of a provider's base URL (operator configuration), parsed once. */
function hostOf(hosts: Map<string, { address: string; port: number }>, baseUrl: string): Record<string, string | number> {
  let host = hosts.get(baseUrl);
  if (!host) {
    const url = new URL(baseUrl);
    host = { address: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
    hosts.set(baseUrl, host);
  }
  return { [SERVER_ADDRESS]: host.address, [SERVER_PORT]: host.port };
}
