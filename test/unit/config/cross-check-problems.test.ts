import { afterAll, describe, expect, it } from 'vitest';
import { listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

describe('problems between files', () => {
  it('reports a route target naming an unknown provider', () => {
    const dir = writeConfigVariant({ 'routes.yaml': replaceOnce('provider: openai, model: gpt-5', 'provider: opnai, model: gpt-5') });
    expect(listProblems(dir)).toEqual([
      'routes.yaml:21:23 route profile "router/fusion" names unknown provider "opnai" (known: openai, anthropic, gemini)',
    ]);
  });

  it('reports a plan naming an unknown route profile', () => {
    const dir = writeConfigVariant({ 'plans.yaml': replaceOnce('[router/frontier]', '[router/frontier, router/fuson]') });
    expect(listProblems(dir)).toEqual([
      'plans.yaml:8:38 plan "free" names unknown route profile "router/fuson" (known: router/frontier, router/fusion)',
    ]);
  });

  it('reports a catalog family naming an unknown route profile', () => {
    const dir = writeConfigVariant({ 'catalog.yaml': replaceOnce('profile: router/fusion', 'profile: router/fusio') });
    expect(listProblems(dir)).toEqual([
      'catalog.yaml:10:14 catalog family "fusion" names unknown route profile "router/fusio" (known: router/frontier, router/fusion)',
    ]);
  });

  it('reports an output limit naming an unknown provider, and a model limited twice', () => {
    const dir = writeConfigVariant({
      'catalog.yaml': (text) => `${text}  - { provider: opnai, model: gpt-4.1, maxOutputTokens: 32768 }\n  - { provider: gemini, model: gemini-2.5-pro, maxOutputTokens: 8192 }\n`,
    });
    const problems = listProblems(dir);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^catalog\.yaml:\d+:\d+ output limit of "gpt-4\.1" names unknown provider "opnai" \(known: openai, anthropic, gemini\)$/);
    expect(problems[1]).toMatch(/^catalog\.yaml:\d+:\d+ duplicate output limit for gemini\/gemini-2\.5-pro \(first defined at models\[4\]\)$/);
  });

  it('reports a model alias naming an unknown route profile, and a model pattern with characters no model name has', () => {
    const withAliases = (aliases: string) => (text: string) => `${text}aliases:\n${aliases}`;
    const dir = writeConfigVariant({ 'routes.yaml': withAliases('  - { model: "claude-*", route: router/frontier }\n  - { model: "claude-haiku-*", route: router/frontiers }\n') });
    expect(listProblems(dir)).toEqual([expect.stringMatching(/^routes\.yaml:\d+:\d+ model alias "claude-haiku-\*" names unknown route profile "router\/frontiers" \(known: router\/frontier, router\/fusion\)$/)]);
    const bad = writeConfigVariant({ 'routes.yaml': withAliases('  - { model: "claude *", route: router/frontier }\n') });
    expect(listProblems(bad)).toEqual([expect.stringContaining('aliases[0].model')]);
  });

  it('reports pricing features for an unknown plan at the key', () => {
    const dir = writeConfigVariant({ 'pricing.yaml': replaceOnce('  max: [', '  maxi: [') });
    expect(listProblems(dir)).toEqual(['pricing.yaml:6:3 features for unknown plan "maxi" (known: free, pro, max)']);
  });

  it('reports a trusted proxy that is not an IPv4 or IPv6 address or range, at the entry', () => {
    const dir = writeConfigVariant({ 'server.yaml': replaceOnce('storage: sqlite', "trustedProxies: [10.0.0.0/8, '::1', 'fd00::/8', 10.0.0.0/33, proxy.internal, '::/129']\nstorage: sqlite") });
    const hint = 'is not an IPv4 or IPv6 address or CIDR range (e.g. 10.0.0.0/8, 2001:db8::/32, 127.0.0.1)';
    expect(listProblems(dir)).toEqual([
      `server.yaml:10:49 trusted proxy "10.0.0.0/33" ${hint}`,
      `server.yaml:10:62 trusted proxy "proxy.internal" ${hint}`,
      `server.yaml:10:78 trusted proxy "::/129" ${hint}`,
    ]);
  });

  it('reports a duplicate id at the duplicate, with what it breaks elsewhere', () => {
    const dir = writeConfigVariant({ 'plans.yaml': replaceOnce('  - id: max', '  - id: pro') });
    expect(listProblems(dir)).toEqual([
      'plans.yaml:16:9 duplicate plan id "pro" (first defined at plans[1])',
      'pricing.yaml:6:3 features for unknown plan "max" (known: free, pro)',
    ]);
  });

  it('reports duplicate route, provider and catalog family ids', () => {
    const dir = writeConfigVariant({
      'routes.yaml': replaceOnce('  - id: router/fusion\n    family: fusion\n', '  - id: router/frontier\n    family: fusion\n'),
      'providers.yaml': replaceOnce('  - id: gemini', '  - id: anthropic'),
      'catalog.yaml': replaceOnce('  - id: fusion', '  - id: frontier'),
    });
    expect(listProblems(dir)).toEqual([
      'plans.yaml:14:38 plan "pro" names unknown route profile "router/fusion" (known: router/frontier)',
      'plans.yaml:20:38 plan "max" names unknown route profile "router/fusion" (known: router/frontier)',
      'routes.yaml:13:23 route profile "router/frontier" names unknown provider "gemini" (known: openai, anthropic)',
      'routes.yaml:14:9 duplicate route profile id "router/frontier" (first defined at routes[0])',
      'routes.yaml:22:23 route profile "router/frontier" names unknown provider "gemini" (known: openai, anthropic)',
      'providers.yaml:21:9 duplicate provider id "anthropic" (first defined at providers[1])',
      'catalog.yaml:8:9 duplicate catalog family id "frontier" (first defined at families[0])',
      'catalog.yaml:10:14 catalog family "frontier" names unknown route profile "router/fusion" (known: router/frontier)',
      'catalog.yaml:22:17 output limit of "gemini-2.5-pro" names unknown provider "gemini" (known: openai, anthropic)',
    ]);
  });

  it('skips checks that need a file which failed its schema, instead of piling up follow-on problems', () => {
    const dir = writeConfigVariant({
      'providers.yaml': replaceOnce('format: gemini', 'format: vertex'),
      'routes.yaml': replaceOnce('provider: openai, model: gpt-5', 'provider: opnai, model: gpt-5'),
    });
    expect(listProblems(dir)).toEqual(['providers.yaml:23:13 providers[2].format must be one of: openai, anthropic, gemini']);
  });

  it('with Stripe billing on, needs both secrets, the app, and one price of its own on every paid plan', () => {
    const stripeOn = (text: string) => `${text}app:\n  enabled: false\nbilling:\n  provider: stripe\n  stripe:\n    secretKey: sk_test_x\n`;
    const shared = writeConfigVariant({
      'server.yaml': stripeOn,
      'plans.yaml': (text) => text.replace('priceUsdMonthly: 20\n', 'priceUsdMonthly: 20\n    stripePriceId: price_same\n').replace('priceUsdMonthly: 200\n', 'priceUsdMonthly: 200\n    stripePriceId: price_same\n'),
    });
    expect(listProblems(shared)).toEqual([
      'server.yaml:35:13 billing.provider is stripe but the account app (app.enabled) is off: checkout and webhooks live in the app',
      'server.yaml:36:3 billing.provider is stripe but billing.stripe.webhookSecret is empty (set it from the environment)',
      'plans.yaml:23:20 plan "max" uses the Stripe price of plan "pro"',
    ]);
    const complete = (text: string) => `${text}billing:\n  provider: stripe\n  stripe:\n    secretKey: sk_test_x\n    webhookSecret: whsec_x\n`;
    const missing = writeConfigVariant({ 'server.yaml': complete, 'plans.yaml': replaceOnce('priceUsdMonthly: 20\n', 'priceUsdMonthly: 20\n    stripePriceId: price_pro\n') });
    expect(listProblems(missing)).toEqual(['plans.yaml:17:5 paid plan "max" has no stripePriceId (billing.provider is stripe)']);
  });

  it('with billing off, price ids are optional', () => {
    expect(listProblems(writeConfigVariant({ 'plans.yaml': replaceOnce('priceUsdMonthly: 20\n', 'priceUsdMonthly: 20\n    stripePriceId: price_pro\n') }))).toEqual([]);
  });
});
