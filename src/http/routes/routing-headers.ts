import type { ServerResponse } from 'node:http';
import type { RoutedMeta } from '../../routing/failover.js';

const RETRY_COUNT = 'x-router-retry-count';
const UPSTREAM = 'x-router-upstream';
const MODEL = 'x-router-model';

/** Which upstream served the request, and how many retries it took (a stream's headers). */
export function routingHeaders(meta: RoutedMeta): Record<string, string> {
  return { [RETRY_COUNT]: String(meta.retryCount), [UPSTREAM]: meta.providerId, [MODEL]: meta.upstreamModel };
}

/** The same headers set straight on the response: every non-stream request pays for this, so no object in between. */
export function setRoutingHeaders(res: ServerResponse, meta: RoutedMeta): void {
  res.setHeader(RETRY_COUNT, String(meta.retryCount));
  res.setHeader(UPSTREAM, meta.providerId);
  res.setHeader(MODEL, meta.upstreamModel);
}
