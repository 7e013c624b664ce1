import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/check-config.js';
import { formatConfigProblem } from '../../../src/config/config-error.js';
import { BASE_CONFIG_DIR, listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

describe('checkConfig', () => {
  it('accepts the shipped config/ and summarises what it holds', () => {
    expect(checkConfig('config', {})).toEqual({
      ok: true,
      problems: [],
      warnings: [],
      summary: 'config/ is valid: 3 plans, 2 route profiles, 8 concrete models, 3 providers, 2 catalog families',
    });
  });

  it('names the directory the same way however it was typed', () => {
    expect(checkConfig('./config/', {}).summary).toBe(
      'config/ is valid: 3 plans, 2 route profiles, 8 concrete models, 3 providers, 2 catalog families',
    );
  });

  it('starts from a valid fixture, so each broken variant below has exactly the problems it introduces', () => {
    expect(checkConfig(BASE_CONFIG_DIR, {}).ok).toBe(true);
  });

  it('reports every problem in every file at once, in file order, as file:line:column message', () => {
    const dir = writeConfigVariant({
      'server.yaml': replaceOnce('port: 8787', 'prot: 8787'),
      'routes.yaml': replaceOnce('    quotaWeight: 1\n    retryBudget: 3\n    tiers:\n      - - { provider: openai', '    quotaWieght: 1\n    retryBudget: 3\n    tiers:\n      - - { provider: openai'),
      'providers.yaml': replaceOnce('format: gemini', 'format: vertex'),
      'pricing.yaml': replaceOnce('currency: USD', 'currency: usd'),
    });

    const result = checkConfig(dir, { ROUTER_PORT: 'eighty' });

    expect(result.ok).toBe(false);
    expect(result.summary).toBe(`${dir}/ has 5 problems`);
    expect(result.problems.map(formatConfigProblem)).toEqual([
      `${join(dir, 'server.yaml')}:9:3 unknown key "prot" in listen (did you mean "port"?)`,
      `${join(dir, 'routes.yaml')}:8:5 unknown key "quotaWieght" in routes[0] (did you mean "quotaWeight"?)`,
      `${join(dir, 'providers.yaml')}:23:13 providers[2].format must be one of: openai, anthropic, gemini`,
      `${join(dir, 'pricing.yaml')}:2:11 currency must be a three-letter currency code such as USD`,
      'env:0:0 ROUTER_PORT: listen.port must be integer',
    ]);
  });

  it('puts problems found by cross-file checks in file order too, among the problems of single files', () => {
    // The cross-file checks run after every file is read; their problems must not trail providers.yaml's own.
    const dir = writeConfigVariant({
      'plans.yaml': replaceOnce('routeProfiles: [router/frontier]\n', 'routeProfiles: [router/frontierr]\n'),
      'routes.yaml': replaceOnce('{ provider: openai, model: gpt-4.1 }', '{ provider: opnai, model: gpt-4.1 }'),
      'providers.yaml': replaceOnce('baseUrl: https://api.openai.com/v1', 'baseUrl: ${ORDER_TEST_UNSET_BASE_URL}'),
      'catalog.yaml': replaceOnce('profile: router/fusion', 'profile: router/fusionn'),
      'pricing.yaml': replaceOnce('  max: [', '  mx: ['),
    });

    const problems = checkConfig(dir, {}).problems;

    expect(problems.map((problem) => `${problem.file.slice(dir.length + 1)}:${problem.line}`)).toEqual([
      'plans.yaml:8',
      'routes.yaml:11',
      'providers.yaml:8',
      'catalog.yaml:10',
      'pricing.yaml:6',
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'plan "free" names unknown route profile "router/frontierr" (known: router/frontier, router/fusion)',
      'route profile "router/frontier" names unknown provider "opnai" (known: openai, anthropic, gemini)',
      'environment variable ORDER_TEST_UNSET_BASE_URL is not set (set it, or give a default: ${ORDER_TEST_UNSET_BASE_URL:-default})',
      'catalog family "fusion" names unknown route profile "router/fusionn" (known: router/frontier, router/fusion)',
      'features for unknown plan "mx" (known: free, pro, max)',
    ]);
  });

  it('reports a directory that does not exist as one problem, not one per file', () => {
    const dir = join(BASE_CONFIG_DIR, 'does-not-exist');
    const result = checkConfig(dir, {});

    expect(result.summary).toBe(`${dir}/ has 1 problem`);
    expect(result.problems.map(formatConfigProblem)).toEqual([
      `${dir}:0:0 configuration directory not found: pass --config <dir> or set ROUTER_CONFIG to the directory holding server.yaml, plans.yaml and the rest`,
    ]);
    expect(checkConfig(join(BASE_CONFIG_DIR, 'server.yaml'), {}).problems).toHaveLength(1);
  });

  it('reports each missing file of a directory that exists without a position', () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-empty-config-'));
    try {
      expect(checkConfig(dir, {}).summary).toBe(`${dir}/ has 6 problems`);
      expect(listProblems(dir)).toEqual(
        ['server', 'plans', 'routes', 'providers', 'catalog', 'pricing'].map((name) => `${name}.yaml:0:0 file not found`),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warns, without failing, about every routed model that has no price', () => {
    // The fixture's providers.yaml predates prices: every route target lacks one.
    const result = checkConfig(BASE_CONFIG_DIR, {});
    expect(result.ok).toBe(true);
    expect(result.summary).toBe(`${BASE_CONFIG_DIR}/ is valid: 3 plans, 2 route profiles, 3 providers, 2 catalog families (9 warnings)`);
    expect(result.warnings.map(formatConfigProblem)[0]).toBe(
      `${join(BASE_CONFIG_DIR, 'routes.yaml')}:11:38 route profile "router/frontier" routes to openai/gpt-4.1, which has no price in providers.yaml (providers[].prices): its cost is recorded as unknown and managed access cannot meter it`,
    );
    expect(result.warnings.filter((warning) => warning.message.includes('no price')).map((warning) => warning.message.split(', which')[0])).toEqual([
      'route profile "router/frontier" routes to openai/gpt-4.1',
      'route profile "router/frontier" routes to anthropic/claude-sonnet-4-5',
      'route profile "router/frontier" routes to gemini/gemini-2.5-pro',
      'route profile "router/fusion" routes to anthropic/claude-opus-4-1',
      'route profile "router/fusion" routes to openai/gpt-5',
      'route profile "router/fusion" routes to gemini/gemini-2.5-pro',
    ]);
  });

  it('warns, without failing, about a provider that declares no data policy', () => {
    // The fixture's providers.yaml predates policies: none declares one.
    const policy = checkConfig(BASE_CONFIG_DIR, {}).warnings.filter((warning) => warning.message.includes('data policy'));
    expect(policy.map(formatConfigProblem)).toEqual(
      ['openai', 'anthropic', 'gemini'].map(
        (id, i) =>
          `${join(BASE_CONFIG_DIR, 'providers.yaml')}:${[5, 13, 21][i]}:5 provider "${id}" declares no data policy (policy): requests with provider.data_collection: deny or provider.zdr: true never go to it`,
      ),
    );
  });

  it('refuses a concrete model whose endpoint names an unknown provider, and a plan model pattern with other characters', () => {
    const dir = writeConfigVariant({
      'catalog.yaml': (text) => `${text}\nconcreteModels:\n  - { id: acme/m-1, name: M, contextLength: 8, created: 0, endpoints: [{ provider: acme, model: m-1 }] }\n`,
      'plans.yaml': replaceOnce('    priceUsdMonthly: 0\n', '    models: { allow: ["acme/m 1"], deny: [] }\n    priceUsdMonthly: 0\n'),
    });
    const result = checkConfig(dir, {});
    expect(result.ok).toBe(false);
    expect(result.problems.map((problem) => problem.message)).toEqual([
      'plan "free" model pattern "acme/m 1" may hold only model-id characters and *',
      'concrete model "acme/m-1" names unknown provider "acme" (known: openai, anthropic, gemini)',
    ]);
  });

  it('warns, without failing, about a routed model with no output limit in the catalog', () => {
    const dir = writeConfigVariant({ 'catalog.yaml': replaceOnce('  - { provider: openai, model: gpt-5, maxOutputTokens: 128000 }\n', '') });
    const result = checkConfig(dir, {});
    expect(result.ok).toBe(true);
    expect(result.warnings.map((warning) => warning.message).filter((message) => message.includes('output limit'))).toEqual([
      'route profile "router/fusion" routes to openai/gpt-5, which has no output limit in catalog.yaml (models): output caps above the model\'s own limit are sent as asked, and the upstream may refuse them',
    ]);
  });

  it('refuses an output limit that is not a positive whole number', () => {
    const dir = writeConfigVariant({ 'catalog.yaml': replaceOnce('maxOutputTokens: 128000', 'maxOutputTokens: 0') });
    expect(checkConfig(dir, {}).ok).toBe(false);
  });

  it('says "1 problem" for a single problem', () => {
    const dir = writeConfigVariant({ 'plans.yaml': replaceOnce('requestsPerMinute: 20', 'requestsPerMinute: -1') });
    expect(checkConfig(dir, {}).summary).toBe(`${dir}/ has 1 problem`);
  });
});
