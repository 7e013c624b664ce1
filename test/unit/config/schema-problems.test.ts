import { afterAll, describe, expect, it } from 'vitest';
import { listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

describe('problems found while parsing and validating one file', () => {
  it('reports a YAML syntax error once, at its position, without the knock-on errors after it', () => {
    const dir = writeConfigVariant({ 'plans.yaml': replaceOnce('    name: Pro', '\tname: Pro') });
    expect(listProblems(dir)).toEqual(['plans.yaml:11:1 YAML syntax: Tabs are not allowed as indentation']);
  });

  it('reports a duplicated YAML key at the duplicate', () => {
    const dir = writeConfigVariant({ 'server.yaml': replaceOnce('keyCacheTtlMs: 5000\n', 'keyCacheTtlMs: 5000\nkeyCacheTtlMs: 6000\n') });
    expect(listProblems(dir)).toEqual(['server.yaml:16:1 YAML syntax: Map keys must be unique']);
  });

  it('points at a misspelt setting by its key and suggests the real one', () => {
    const dir = writeConfigVariant({
      'routes.yaml': replaceOnce('    quotaWeight: 1\n    retryBudget: 3\n    tiers:\n      - - { provider: openai', '    quotaWieght: 1\n    retryBudget: 3\n    tiers:\n      - - { provider: openai'),
    });
    expect(listProblems(dir)).toEqual(['routes.yaml:8:5 unknown key "quotaWieght" in routes[0] (did you mean "quotaWeight"?)']);
  });

  it('reports an unknown key with nothing close to it without a suggestion', () => {
    const dir = writeConfigVariant({ 'server.yaml': replaceOnce('listen:\n', 'listen:\n  reusePort: true\n') });
    expect(listProblems(dir)).toEqual(['server.yaml:8:3 unknown key "reusePort" in listen']);
  });

  it('reports an unknown key inside a flow mapping at the key', () => {
    const dir = writeConfigVariant({ 'catalog.yaml': replaceOnce('{ streaming: true, tools: true, responses: true }\n  - id: fusion', '{ streaming: true, tools: true, responses: true, vision: true }\n  - id: fusion') });
    expect(listProblems(dir)).toEqual(['catalog.yaml:7:68 unknown key "vision" in families[0].capabilities']);
  });

  it('points at a value of the wrong type', () => {
    const dir = writeConfigVariant({ 'plans.yaml': replaceOnce('requestsPerMinute: 20', 'requestsPerMinute: twenty') });
    expect(listProblems(dir)).toEqual(['plans.yaml:7:24 plans[0].requestsPerMinute must be integer']);
  });

  it('points at the object that lacks a required field', () => {
    const dir = writeConfigVariant({ 'plans.yaml': replaceOnce('    name: Pro\n', '') });
    expect(listProblems(dir)).toEqual(['plans.yaml:10:5 plans[1] is missing required key "name"']);
  });

  it('points at the key of an empty value', () => {
    const dir = writeConfigVariant({ 'server.yaml': replaceOnce('  port: 8787', '  port:') });
    expect(listProblems(dir)).toEqual(['server.yaml:9:3 listen.port must be integer']);
  });

  it('lists the allowed values of an enumeration', () => {
    const dir = writeConfigVariant({ 'providers.yaml': replaceOnce('format: gemini', 'format: vertex') });
    expect(listProblems(dir)).toEqual(['providers.yaml:23:13 providers[2].format must be one of: openai, anthropic, gemini']);
  });

  it('says in words what a pattern accepts', () => {
    const dir = writeConfigVariant({ 'server.yaml': replaceOnce('baseUrl: http://localhost:8787', 'baseUrl: localhost:8787') });
    expect(listProblems(dir)).toEqual(['server.yaml:3:10 baseUrl must be an http:// or https:// URL']);
  });

  it('rejects a route profile with no targets', () => {
    const dir = writeConfigVariant({
      'routes.yaml': replaceOnce('    tiers:\n      - - { provider: anthropic, model: claude-opus-4-1 }\n        - { provider: openai, model: gpt-5 }\n      - - { provider: gemini, model: gemini-2.5-pro }\n', '    tiers: []\n'),
    });
    expect(listProblems(dir)).toEqual(['routes.yaml:19:5 routes[1].tiers must not be empty']);
  });

  it('rejects an empty tier', () => {
    const dir = writeConfigVariant({ 'routes.yaml': replaceOnce('      - - { provider: gemini, model: gemini-2.5-pro }\n  - id', '      - - { provider: gemini, model: gemini-2.5-pro }\n      - []\n  - id') });
    expect(listProblems(dir)).toEqual(['routes.yaml:14:9 routes[0].tiers[3] must not be empty']);
  });

  it('requires redisUrl when the rate-limit backend is redis, reported once', () => {
    const dir = writeConfigVariant({ 'server.yaml': replaceOnce('backend: memory', 'backend: redis') });
    expect(listProblems(dir)).toEqual(['server.yaml:11:1 rateLimit is missing required key "redisUrl"']);
  });

  it('rejects an invalid header name at the key', () => {
    const dir = writeConfigVariant({ 'providers.yaml': replaceOnce('anthropic-version:', 'anthropic version:') });
    expect(listProblems(dir)).toEqual(['providers.yaml:20:7 invalid key "anthropic version" in providers[1].headers']);
  });

  it('rejects an empty file as a whole', () => {
    const dir = writeConfigVariant({ 'pricing.yaml': () => '# nothing yet\n' });
    expect(listProblems(dir)).toEqual(['pricing.yaml:1:1 file must be object']);
  });
});
