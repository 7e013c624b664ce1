import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

/** The base config with the OpenAI provider's baseUrl (line 8, value at column 14) replaced. */
const withOpenaiBaseUrl = (value: string): string =>
  writeConfigVariant({ 'providers.yaml': replaceOnce('baseUrl: https://api.openai.com/v1', `baseUrl: ${value}`) });

describe('${VAR} references in YAML values', () => {
  it('replaces a reference with the variable', () => {
    const dir = withOpenaiBaseUrl('${OPENAI_BASE_URL}');
    const config = loadConfig(dir, { OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1' });
    expect(config.providers.providers[0]?.baseUrl).toBe('http://127.0.0.1:9999/v1');
  });

  it('replaces a reference inside a longer string', () => {
    const dir = withOpenaiBaseUrl('https://${OPENAI_HOST}/v1');
    const config = loadConfig(dir, { OPENAI_HOST: 'gateway.internal' });
    expect(config.providers.providers[0]?.baseUrl).toBe('https://gateway.internal/v1');
  });

  it('uses the default when the variable is unset or empty, like a shell', () => {
    const dir = withOpenaiBaseUrl('${OPENAI_BASE_URL:-https://proxy.example/v1}');
    expect(loadConfig(dir, {}).providers.providers[0]?.baseUrl).toBe('https://proxy.example/v1');
    expect(loadConfig(dir, { OPENAI_BASE_URL: '' }).providers.providers[0]?.baseUrl).toBe('https://proxy.example/v1');
    expect(loadConfig(dir, { OPENAI_BASE_URL: 'https://other.example/v1' }).providers.providers[0]?.baseUrl).toBe(
      'https://other.example/v1',
    );
  });

  it('reports an unset variable without a default at the value, and only that', () => {
    const dir = withOpenaiBaseUrl('${OPENAI_BASE_URL}');
    expect(listProblems(dir)).toEqual([
      'providers.yaml:8:14 environment variable OPENAI_BASE_URL is not set (set it, or give a default: ${OPENAI_BASE_URL:-default})',
    ]);
  });

  it('reports a malformed reference', () => {
    const dir = withOpenaiBaseUrl('${openai-base-url}');
    expect(listProblems(dir)).toEqual([
      'providers.yaml:8:14 malformed environment reference (write ${NAME} or ${NAME:-default})',
    ]);
  });
});
