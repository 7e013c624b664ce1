import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/check-config.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { BASE_CONFIG_DIR, listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

describe('ROUTER_* environment overrides', () => {
  it('override server.yaml after it is read', () => {
    const config = loadConfig(BASE_CONFIG_DIR, {
      ROUTER_PORT: '9100',
      ROUTER_HOST: '0.0.0.0',
      ROUTER_STORAGE: 'postgres://router@127.0.0.1/router',
      ROUTER_BASE_URL: 'https://api.example.com/',
      ROUTER_APP_URL: 'https://app.example.com',
      ROUTER_SECRET_KEY: 'override-secret',
      ROUTER_REDIS_URL: 'redis://127.0.0.1:6379',
    });

    expect(config.server.listen).toEqual({ host: '0.0.0.0', port: 9100, maxConnections: 10000, workers: 1, watchdogTimeoutMs: 3000 });
    expect(config.server.storage).toBe('postgres://router@127.0.0.1/router');
    expect(config.server.baseUrl).toBe('https://api.example.com');
    expect(config.server.appUrl).toBe('https://app.example.com');
    expect(config.server.secretKey?.reveal()).toBe('override-secret');
    expect(config.server.rateLimit).toEqual({ backend: 'redis', redisUrl: 'redis://127.0.0.1:6379', keyPrefix: 'rl:', quotaGate: true });
  });

  it('accept sqlite: and postgresql:// storage', () => {
    expect(loadConfig(BASE_CONFIG_DIR, { ROUTER_STORAGE: 'sqlite::memory:' }).server.storage).toBe('sqlite::memory:');
    expect(loadConfig(BASE_CONFIG_DIR, { ROUTER_STORAGE: 'postgresql://db/router' }).server.storage).toBe(
      'postgresql://db/router',
    );
  });

  it('set listen.workers from ROUTER_WORKERS: a count or auto', () => {
    expect(loadConfig(BASE_CONFIG_DIR, { ROUTER_WORKERS: '4' }).server.listen.workers).toBe(4);
    expect(loadConfig(BASE_CONFIG_DIR, { ROUTER_WORKERS: 'auto' }).server.listen.workers).toBe('auto');
    for (const bad of ['0', '257', 'all', '2.5']) {
      expect(listProblems(BASE_CONFIG_DIR, { ROUTER_WORKERS: bad })).toEqual(['env:0:0 ROUTER_WORKERS: listen.workers must be a whole number from 1 to 256, or auto']);
    }
  });

  it('treat an empty variable as unset', () => {
    const config = loadConfig(BASE_CONFIG_DIR, { ROUTER_PORT: '', ROUTER_SECRET_KEY: '', ROUTER_REDIS_URL: '' });
    expect(config.server.listen.port).toBe(8787);
    expect(config.server.secretKey).toBeUndefined();
    expect(config.server.rateLimit).toEqual({ backend: 'memory', keyPrefix: 'rl:', quotaGate: true });
  });

  it('report an invalid override against the variable, with no position', () => {
    expect(listProblems(BASE_CONFIG_DIR, { ROUTER_PORT: '80a' })).toEqual(['env:0:0 ROUTER_PORT: listen.port must be integer']);
    expect(listProblems(BASE_CONFIG_DIR, { ROUTER_PORT: '70000' })).toEqual(['env:0:0 ROUTER_PORT: listen.port must be <= 65535']);
    expect(listProblems(BASE_CONFIG_DIR, { ROUTER_STORAGE: 'mysql://db' })).toEqual([
      'env:0:0 ROUTER_STORAGE: storage must be sqlite:PATH, postgres://… or postgresql://…',
    ]);
    expect(listProblems(BASE_CONFIG_DIR, { ROUTER_BASE_URL: 'api.example.com' })).toEqual([
      'env:0:0 ROUTER_BASE_URL: baseUrl must be an http:// or https:// URL',
    ]);
  });

  it('never echo the value of a rejected override, which may hold a password', () => {
    const result = checkConfig(BASE_CONFIG_DIR, {
      ROUTER_STORAGE: 'mysql://router:hunter2@db/router',
      ROUTER_REDIS_URL: 'http://:hunter2@cache',
    });
    expect(result.problems).toHaveLength(2);
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it('replace a YAML value whose own ${VAR} is unset', () => {
    const dir = writeConfigVariant({ 'server.yaml': replaceOnce('baseUrl: http://localhost:8787', 'baseUrl: ${PUBLIC_URL}') });
    expect(listProblems(dir)).toEqual([
      'server.yaml:3:10 environment variable PUBLIC_URL is not set (set it, or give a default: ${PUBLIC_URL:-default})',
    ]);
    expect(loadConfig(dir, { ROUTER_BASE_URL: 'https://api.example.com' }).server.baseUrl).toBe('https://api.example.com');
  });
});
