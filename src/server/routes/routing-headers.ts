import type { ServerResponse } from 'node:http';
import type { RoutedMeta } from '../../routing/failover.js';

/** Which upstream served the request, and how many retries it took. */
export function routingHeaders(meta: RoutedMeta): Record<string, string> {
  return {
    'x-router-retry-count': String(meta.retryCount),
    'x-router-upstream': meta.providerId,
    'x-router-model': meta.upstreamModel,
  };
}

export function setRoutingHeaders(res: ServerResponse, meta: RoutedMeta): void {
  for (const [name, value] of Object.entries(routingHeaders(meta))) res.setHeader(name, value);
}
