/**
 * GET /status: public provider health (circuit state, recent success rate, p50 latency) and the measured
 * routing figures per provider and model (time to first byte, output tokens per second, error rate). No secrets.
 */
import { eventHandler } from 'h3';
import type { MeasuredFigures } from '../../routing/route-measurements.js';
import type { RouterDeps } from '../router-deps.js';

export function createStatusRoute(deps: RouterDeps) {
  const providerIds = deps.config.providers.providers.map((provider) => provider.id);
  return eventHandler((event) => {
    event.node.res.setHeader('cache-control', 'no-store');
    return { object: 'status', providers: deps.health.snapshot(providerIds), measured: deps.measurements.snapshot().map(publicFigures) };
  });
}

/** Rounded for people and stable JSON; `updatedAt` as an ISO instant. */
function publicFigures(figures: MeasuredFigures) {
  return {
    provider: figures.provider,
    model: figures.model,
    ttfbMs: figures.ttfbMs === null ? null : Math.round(figures.ttfbMs),
    tokensPerSecond: figures.tokensPerSecond === null ? null : Math.round(figures.tokensPerSecond * 10) / 10,
    errorRate: Math.round(figures.errorRate * 1000) / 1000,
    samples: figures.samples,
    updatedAt: new Date(figures.updatedAt).toISOString(),
  };
}
