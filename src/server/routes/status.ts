/** GET /status: public provider health (circuit state, recent success rate, p50 latency). No secrets. */
import { eventHandler } from 'h3';
import type { RouterDeps } from '../router-deps.js';

export function createStatusRoute(deps: RouterDeps) {
  const providerIds = deps.config.providers.providers.map((provider) => provider.id);
  return eventHandler((event) => {
    event.node.res.setHeader('cache-control', 'no-store');
    return { object: 'status', providers: deps.health.snapshot(providerIds) };
  });
}
