import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProviderConfig, RouteProfileConfig } from '../../../src/config/types.js';
import { RouterError } from '../../../src/core/errors.js';
import { narrowRoute, parseProviderPreferences, type ProviderPreferences } from '../../../src/routing/provider-preferences.js';

const IDS = ['a', 'b', 'c', 'd'] as const;

function provider(id: string, format: ProviderConfig['format'], price: number | null, policy: ProviderConfig['policy']): ProviderConfig {
  return {
    id,
    name: id,
    format,
    baseUrl: 'http://127.0.0.1:1',
    nativeResponses: false,
    streamUsage: false,
    maxTokensField: 'max_tokens',
    defaultMaxTokens: 1,
    timeouts: { connectMs: 1, firstByteMs: 1, idleMs: 1 },
    headers: {},
    prices: price === null ? {} : { m: { input: price, output: price * 4 } },
    ...(policy ? { policy } : {}),
  };
}

const providerArb = (id: string) =>
  fc
    .record({
      format: fc.constantFrom<ProviderConfig['format']>('openai', 'anthropic', 'gemini'),
      price: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }),
      policy: fc.option(fc.record({ trainsOnPrompts: fc.boolean(), retentionDays: fc.constantFrom(0, 30), region: fc.constant('us') }), { nil: undefined }),
    })
    .map(({ format, price, policy }) => provider(id, format, price, policy));

const routeArb = fc.array(fc.subarray([...IDS], { minLength: 1 }), { minLength: 1, maxLength: 3 }).map(
  (tiers): RouteProfileConfig => ({ id: 'r', family: 'f', description: '', quotaWeight: 1, retryBudget: 3, tiers: tiers.map((tier) => tier.map((id) => ({ provider: id, model: 'm', weight: 1 }))) }),
);

const preferencesArb = fc.record(
  {
    order: fc.subarray([...IDS, 'zz'], { maxLength: 3 }),
    only: fc.subarray([...IDS, 'zz'], { minLength: 1 }),
    ignore: fc.subarray([...IDS], { maxLength: 2 }),
    allow_fallbacks: fc.boolean(),
    sort: fc.constantFrom('price', 'latency', 'throughput'),
    max_price: fc.record({ prompt: fc.integer({ min: 0, max: 20 }), completion: fc.integer({ min: 0, max: 80 }) }, { requiredKeys: [] }),
    data_collection: fc.constantFrom('allow', 'deny'),
    zdr: fc.boolean(),
    require_parameters: fc.boolean(),
  },
  { requiredKeys: [] },
);

/** Every constraint stated, checked independently of the implementation. */
function meets(target: { provider: string; model: string }, stated: ProviderPreferences, providers: Map<string, ProviderConfig>, params: string[]): boolean {
  const p = providers.get(target.provider)!;
  const price = p.prices[target.model];
  if (stated.only && !stated.only.includes(p.id)) return false;
  if (stated.ignore?.includes(p.id)) return false;
  if (stated.order && !stated.allowFallbacks && !stated.order.includes(p.id)) return false;
  if (stated.dataCollection === 'deny' && (!p.policy || p.policy.trainsOnPrompts)) return false;
  if (stated.zdr && p.policy?.retentionDays !== 0) return false;
  if (stated.maxPrice && (!price || price.input > (stated.maxPrice.prompt ?? Infinity) || price.output > (stated.maxPrice.completion ?? Infinity))) return false;
  if (stated.requireParameters && params.includes('logprobs') && p.format !== 'openai') return false;
  return true;
}

describe('provider preferences', () => {
  it('refuses a provider id the router does not have in order, only or ignore, naming the field', () => {
    const providers = new Map(IDS.map((id) => [id, { id } as ProviderConfig]));
    const route = { id: 'router/x', tiers: [IDS.map((provider) => ({ provider, model: 'm' }))] } as unknown as RouteProfileConfig;
    for (const field of ['order', 'only', 'ignore'] as const) {
      for (const id of ['zz', 'constructor', '__proto__', 'tostring']) {
        const stated = parseProviderPreferences({ [field]: [IDS[0], id] });
        if (stated instanceof RouterError) throw stated;
        expect(narrowRoute(route, stated, { providers, requestedParameters: [] })).toMatchObject({ status: 400, param: `provider.${field}` });
      }
    }
  });

  it('never widens the route, and every candidate left meets every stated constraint; nothing left is a 400 naming a provider field', () => {
    fc.assert(
      fc.property(routeArb, fc.tuple(...IDS.map(providerArb)), preferencesArb, fc.boolean(), (route, list, raw, logprobs) => {
        const providers = new Map(list.map((p) => [p.id, p]));
        const stated = parseProviderPreferences(raw);
        if (stated instanceof RouterError) return;
        const params = logprobs ? ['logprobs'] : [];
        const narrowed = narrowRoute(route, stated, { providers, requestedParameters: params });
        const allowed = route.tiers.flat().filter((target) => meets(target, stated, providers, params));
        if (narrowed instanceof RouterError) {
          expect(narrowed.status).toBe(400);
          expect(narrowed.param).toMatch(/^provider(\.|$)/);
          // Refused only when nothing was left, the request contradicted itself, or it named a provider this router does not have.
          const namesUnknown = (['order', 'only', 'ignore'] as const).some((field) => narrowed.param === `provider.${field}` && stated[field]?.some((id) => !providers.has(id)));
          if (allowed.length > 0 && !namesUnknown) expect(['provider.order', 'provider.sort']).toContain(narrowed.param);
          return;
        }
        const left = narrowed.tiers.flat();
        expect(left.length).toBeGreaterThan(0);
        for (const target of left) {
          expect(route.tiers.flat()).toContainEqual(target);
          expect(meets(target, stated, providers, params)).toBe(true);
        }
        expect(new Set(left)).toEqual(new Set(allowed));
        expect(narrowed.id).toBe(route.id);
        expect(narrowed.retryBudget).toBeLessThanOrEqual(route.retryBudget);
      }),
      { numRuns: 500 },
    );
  });

  it('orders: order first, price cheapest first, and measured sorts hand over to the measured ranking', () => {
    const providers = new Map([provider('a', 'openai', 9, undefined), provider('b', 'openai', 1, undefined), provider('c', 'openai', 5, undefined)].map((p) => [p.id, p]));
    const route: RouteProfileConfig = { id: 'r', family: 'f', description: '', quotaWeight: 1, retryBudget: 2, tiers: [[{ provider: 'a', model: 'm', weight: 1 }], [{ provider: 'b', model: 'm', weight: 1 }], [{ provider: 'c', model: 'm', weight: 1 }]] };
    const ids = (prefs: unknown) => (narrowRoute(route, parseProviderPreferences(prefs) as ProviderPreferences, { providers, requestedParameters: [] }) as RouteProfileConfig).tiers.flat().map((t) => t.provider);
    expect(ids({ order: ['c'] })).toEqual(['c', 'a', 'b']);
    expect(ids({ sort: 'price' })).toEqual(['b', 'c', 'a']);
    expect(ids({ order: ['c'], allow_fallbacks: false })).toEqual(['c']);
    const measured = narrowRoute(route, parseProviderPreferences({ sort: 'throughput' }) as ProviderPreferences, { providers, requestedParameters: [] }) as RouteProfileConfig;
    expect([measured.order, measured.sort]).toEqual(['measured', 'throughput']);
    const single = narrowRoute(route, parseProviderPreferences({ allow_fallbacks: false }) as ProviderPreferences, { providers, requestedParameters: [] }) as RouteProfileConfig;
    expect(single.retryBudget).toBe(0);
  });

  it('parses OpenRouter field names and refuses anything else by name', () => {
    expect(parseProviderPreferences({ data_collection: 'deny', zdr: true })).toMatchObject({ dataCollection: 'deny', zdr: true, allowFallbacks: true });
    expect((parseProviderPreferences('openai') as RouterError).param).toBe('provider');
    expect((parseProviderPreferences({ order: 'openai' }) as RouterError).param).toBe('provider.order');
    expect((parseProviderPreferences({ max_price: { request: 1 } }) as RouterError).param).toBe('provider.max_price.request');
  });
});
