import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { Secret } from '../../../src/config/secret.js';
import { BASE_CONFIG_DIR, removeConfigVariants, replaceOnce, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

const SECRETS = { OPENAI_API_KEY: 'sk-openai-do-not-print', ROUTER_SECRET_KEY: 'router-key-do-not-print' };

describe('loadConfig', () => {
  it('returns a deeply frozen configuration', () => {
    const config = loadConfig(BASE_CONFIG_DIR, SECRETS);

    for (const part of [
      config,
      config.server.listen,
      config.server.edge.rejectUserAgents,
      config.plans[0],
      config.routes[1]?.tiers[0]?.[1],
      config.providers.providers[1]?.headers,
      config.pricing.features,
      config.pricing.features.free,
      config.catalog.families[0]?.capabilities,
    ]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (config.server.listen as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('fills schema defaults the YAML leaves out', () => {
    const config = loadConfig(BASE_CONFIG_DIR, {});
    const [openai, anthropic, gemini] = config.providers.providers;

    expect(anthropic).toMatchObject({
      nativeResponses: false,
      streamUsage: false,
      maxTokensField: 'max_tokens',
      defaultMaxTokens: 8192,
      timeouts: { connectMs: 5000, firstByteMs: 60000, idleMs: 120000 },
      headers: { 'anthropic-version': '2023-06-01' },
    });
    expect(openai?.headers).toEqual({});
    expect(gemini?.defaultMaxTokens).toBe(4096);
    expect(config.routes[0]?.tiers[0]).toEqual([{ provider: 'openai', model: 'gpt-4.1', weight: 1 }]);
  });

  it('derives appUrl, docsUrl and supportUrl when absent, without trailing slashes', () => {
    const dir = writeConfigVariant({
      'server.yaml': replaceOnce(
        'baseUrl: http://localhost:8787\nappUrl: http://localhost:8787/app\ndocsUrl: http://localhost:8787/docs\nsupportUrl: http://localhost:8787/app/support\n',
        'baseUrl: https://api.example.com//\n',
      ),
    });
    const { server } = loadConfig(dir, {});

    expect([server.baseUrl, server.appUrl, server.docsUrl, server.supportUrl]).toEqual([
      'https://api.example.com',
      'https://api.example.com/app',
      'https://api.example.com/docs',
      'https://api.example.com/app/support',
    ]);
  });

  it('wraps secrets so that printing the config never shows them', () => {
    const config = loadConfig(BASE_CONFIG_DIR, SECRETS);
    const openai = config.providers.providers[0];

    expect(openai?.managedKey).toBeInstanceOf(Secret);
    expect(openai?.managedKey?.reveal()).toBe('sk-openai-do-not-print');
    expect(config.server.secretKey?.reveal()).toBe('router-key-do-not-print');
    for (const printed of [JSON.stringify(config), inspect(config, { depth: Infinity }), String(config.server.secretKey)]) {
      expect(printed).toContain('[redacted]');
      expect(printed).not.toContain('do-not-print');
    }
  });

  it('leaves out a secret that resolves to an empty string', () => {
    const config = loadConfig(BASE_CONFIG_DIR, { OPENAI_API_KEY: 'sk-openai' });

    expect(config.server.secretKey).toBeUndefined();
    expect('secretKey' in config.server).toBe(false);
    expect(config.providers.providers.map((provider) => 'managedKey' in provider)).toEqual([true, false, false]);
  });

  it('throws a ConfigError listing every problem', () => {
    const dir = writeConfigVariant({
      'plans.yaml': replaceOnce('requestsPerMinute: 20', 'requestsPerMinute: twenty'),
      'routes.yaml': replaceOnce('provider: openai, model: gpt-5', 'provider: opnai, model: gpt-5'),
    });

    let thrown: unknown;
    try {
      loadConfig(dir, {});
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(ConfigError);
    const error = thrown as ConfigError;
    expect(error.problems.map((problem) => [problem.line, problem.column])).toEqual([
      [7, 24],
      [21, 23],
    ]);
    expect(error.message).toBe(
      `Invalid configuration in ${dir} (2 problems):\n` +
        `${dir}/plans.yaml:7:24 plans[0].requestsPerMinute must be integer\n` +
        `${dir}/routes.yaml:21:23 route profile "router/fusion" names unknown provider "opnai" (known: openai, anthropic, gemini)`,
    );
  });
});
