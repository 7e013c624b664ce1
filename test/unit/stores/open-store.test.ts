import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { openRateLimiter } from '../../../src/stores/open-rate-limiter.js';
import { openStore, splitStorageUrl } from '../../../src/stores/open-store.js';

describe('openStore', () => {
  const startDir = process.cwd();
  afterEach(() => process.chdir(startDir));

  it('opens an in-memory SQLite store', async () => {
    const store = await openStore('sqlite::memory:', systemClock);
    expect(store.kind).toBe('sqlite');
    await store.migrate();
    expect(await store.listAccounts()).toEqual([]);
    await store.close();
  });

  it('resolves a SQLite path against the working directory and creates its folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-open-store-'));
    process.chdir(dir);
    const store = await openStore('sqlite:data/router.db', systemClock);
    await store.migrate();
    await store.close();
    expect(existsSync(join(dir, 'data', 'router.db'))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens PostgreSQL for both URL schemes without connecting yet', async () => {
    for (const url of ['postgres://router@127.0.0.1:1/router', 'postgresql://router@127.0.0.1:1/router']) {
      const store = await openStore(url, systemClock);
      expect(store.kind).toBe('postgres');
      await store.close();
    }
  });

  it('takes the router\'s schema and poolSize out of a PostgreSQL URL and leaves the rest to the driver', () => {
    expect(splitStorageUrl('postgres://router@db:5432/router?schema=edge&poolSize=2&sslmode=require')).toEqual({
      url: 'postgres://router@db:5432/router?sslmode=require',
      schema: 'edge',
      poolSize: 2,
    });
    expect(splitStorageUrl('postgres://router@db/router')).toEqual({ url: 'postgres://router@db/router' });
    for (const bad of ['0', '-1', '2.5', 'ten', '10000']) {
      expect(() => splitStorageUrl(`postgres://router@db/router?poolSize=${bad}`)).toThrow('poolSize must be a whole number from 1 to 9999');
    }
  });

  it('names an unsupported scheme without echoing credentials', async () => {
    await expect(openStore('mysql://root:hunter2@db/router', systemClock)).rejects.toThrow('unsupported storage scheme mysql:; use sqlite:PATH or postgres://…');
    await expect(openStore('sqlite:', systemClock)).rejects.toThrow('needs a file path');
  });
});

describe('openRateLimiter', () => {
  it('opens the memory limiter', async () => {
    const limiter = await openRateLimiter({ backend: 'memory', keyPrefix: 'rl:', quotaGate: true });
    expect([limiter.kind, limiter.status()]).toEqual(['memory', { backend: 'memory' }]);
    await limiter.close();
  });

  it('requires a Redis URL for the redis backend', async () => {
    await expect(openRateLimiter({ backend: 'redis', keyPrefix: 'rl:', quotaGate: true })).rejects.toThrow('rateLimit.redisUrl is not set');
  });

  it('opens the Redis limiter and passes the outage callback on', async () => {
    const reasons: string[] = [];
    const limiter = await openRateLimiter({ backend: 'redis', keyPrefix: 'rl:', quotaGate: true, redisUrl: 'redis://127.0.0.1:1' }, { onUnavailable: (reason) => reasons.push(reason) });
    expect(limiter.kind).toBe('redis');
    await limiter.admit('acct_a', 1, 0);
    expect(limiter.status().backend).toBe('memory-fallback');
    expect(reasons).toHaveLength(1);
    await limiter.close();
  });
});
