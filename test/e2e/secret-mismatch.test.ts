/**
 * A key issued by a CLI that ran under another server secret than the router (or none) gets a 401 that
 * says so, not a bare "not known"; and `router serve` warns at start when ROUTER_SECRET_KEY is unset.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyService } from '../../src/accounts/key-service.js';
import { systemClock } from '../../src/core/clock.js';
import { json, startRouterProcess, startTestRouter, writeConfigDir, type TestRouter } from './router-harness.js';

const UA = { 'user-agent': 'router-tests/1.0' };

/** Issue a key on the router's own store, hashed the way a CLI with `secret` (or none) would. */
async function keyIssuedBy(router: TestRouter, secret: string | undefined): Promise<string> {
  const { store } = router.server.runtime;
  const account = await store.createAccount({ email: `mismatch-${Date.now()}@example.com`, plan: 'pro' }, 'test');
  const cli = new KeyService({ store, clock: systemClock, secret, cacheTtlMs: 1 });
  return (await cli.issue(account.id, null, 'cli')).key;
}

describe('keys issued under another server secret', () => {
  let router: TestRouter | undefined;
  afterEach(async () => {
    await router?.close();
    router = undefined;
  });

  it('a key issued without a secret, presented to a router with one, is refused with a message that says why', async () => {
    router = await startTestRouter();
    const key = await keyIssuedBy(router, undefined);
    const response = await fetch(`${router.baseURL}/models`, { headers: { ...UA, authorization: `Bearer ${key}` } });
    expect(response.status).toBe(401);
    const { error } = await json(response);
    expect(error.code).toBe('invalid_api_key');
    expect(error.message).toMatch(/issued without ROUTER_SECRET_KEY/);
    expect(error.message).toMatch(/same ROUTER_SECRET_KEY/);
    expect(error.message).not.toContain(key);
  });

  it('a router without a secret says that keys issued under one are not recognised here', async () => {
    router = await startTestRouter({ env: { ROUTER_SECRET_KEY: '' } });
    const key = await keyIssuedBy(router, 'the-cli-had-this-secret-0123456789');
    const response = await fetch(`${router.baseURL}/models`, { headers: { ...UA, authorization: `Bearer ${key}` } });
    expect(response.status).toBe(401);
    expect((await json(response)).error.message).toMatch(/runs without ROUTER_SECRET_KEY/);
  });

  it('router serve warns at start when ROUTER_SECRET_KEY is unset', async () => {
    const configDir = writeConfigDir();
    const dataDir = mkdtempSync(join(tmpdir(), 'router-secret-'));
    try {
      const process = await startRouterProcess({ ROUTER_CONFIG: configDir, ROUTER_STORAGE: `sqlite:${join(dataDir, 'r.db')}`, ROUTER_SECRET_KEY: '', ROUTER_LOG_FORMAT: 'json' });
      await process.stop();
      expect(process.output()).toMatch(/"level":"warn".*ROUTER_SECRET_KEY is not set/);
    } finally {
      rmSync(configDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
