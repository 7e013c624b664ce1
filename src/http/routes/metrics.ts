/**
 * GET /metrics: Prometheus text from the runtime's registry. With `metrics.token` set it requires
 * `Authorization: Bearer <token>` (compared in constant time), else 401 in the contract's error shape.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { eventHandler } from 'h3';
import { RouterError } from '../../core/errors.js';
import type { RouterMetrics } from '../../metrics/router-metrics.js';
import type { Secret } from '../../config/secret.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

export function createMetricsRoute(metrics: RouterMetrics, token: Secret | undefined) {
  const expected = token === undefined ? undefined : digest(`Bearer ${token.reveal()}`);
  return eventHandler(async (event) => {
    if (expected !== undefined) {
      const sent = event.node.req.headers.authorization ?? '';
      // Hashing first gives both sides one length, so the comparison leaks neither content nor length.
      if (!timingSafeEqual(digest(sent), expected)) {
        throw new RouterError('metrics_token_required', 'GET /metrics needs the bearer token configured as metrics.token.');
      }
    }
    event.node.res.setHeader('content-type', metrics.contentType);
    event.node.res.setHeader('cache-control', 'no-store');
    return metrics.render();
  });
}
