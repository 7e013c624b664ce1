// Per-request CPU cost of the provider-preferences step (parse + narrow a three-target route) and of
// measured ordering (rank three targets by their live figures, hysteresis included), in process, from
// the built dist/. `npm run build` first; `node bench/measure-routing-preferences.mjs`.
import { performance } from 'node:perf_hooks';
import { narrowRoute, parseProviderPreferences } from '../dist/routing/provider-preferences.js';
import { requestedParameters } from '../dist/providers/supported-parameters.js';
import { MeasuredOrder } from '../dist/routing/measured-order.js';
import { RouteMeasurements } from '../dist/routing/route-measurements.js';

const ids = ['p-fast', 'p-cheap', 'p-private'];
const providers = new Map(
  ids.map((id, i) => [id, { id, format: 'openai', prices: { m: { input: 1 + i, output: 4 + i } }, policy: { trainsOnPrompts: i === 0, retentionDays: i === 2 ? 0 : 30, region: 'us' } }]),
);
const route = { id: 'r', family: 'f', description: '', quotaWeight: 1, retryBudget: 2, order: 'measured', tiers: [ids.map((provider) => ({ provider, model: 'm', weight: 1 }))] };
const body = { model: 'r', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, tools: [{ type: 'function' }] };
const stated = { ignore: ['p-fast'], sort: 'price', max_price: { prompt: 5, completion: 10 }, data_collection: 'deny', require_parameters: true };

const measurements = new RouteMeasurements({ now: () => Date.now() });
for (const [i, id] of ids.entries()) measurements.record({ provider: id, model: 'm', ok: true, ttfbMs: 100 + 50 * i, tokensPerSecond: 80 - 10 * i });
const order = new MeasuredOrder(measurements);

function time(label, fn, n = 200_000) {
  for (let i = 0; i < 20_000; i++) fn();
  const start = performance.now();
  for (let i = 0; i < n; i++) fn();
  const us = ((performance.now() - start) * 1000) / n;
  console.log(`${label}: ${us.toFixed(2)} µs per request`);
}

time('preferences (parse + narrow, 5 fields, 3 targets)', () => {
  const preferences = parseProviderPreferences(stated);
  narrowRoute(route, preferences, { providers, requestedParameters: requestedParameters(body) });
});
time('no provider object (parse only)', () => parseProviderPreferences(undefined));
time('measured ordering (3 targets)', () => order.rank(route, route.tiers[0]));
