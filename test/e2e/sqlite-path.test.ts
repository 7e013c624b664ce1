/**
 * A relative SQLite path in server.yaml resolves against the configuration directory, so the CLI run
 * from another directory with --config opens the same database as the server.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { startRouterProcess, writeConfigDir } from './router-harness.js';

const BIN = new URL('../../bin/router', import.meta.url).pathname;

it('the server and a CLI started from another directory with --config share the database named relative to the config', async () => {
  const configDir = writeConfigDir({ server: (doc) => void (doc.storage = 'sqlite:./state/router.db') });
  const elsewhere = mkdtempSync(join(tmpdir(), 'router-cwd-'));
  const env = { ...process.env, ROUTER_SECRET_KEY: 'sqlite-path-secret-0123456789abcdef', ROUTER_STORAGE: '', ROUTER_CONFIG: '' };
  const cli = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args, '--config', configDir, '--json'], { cwd: elsewhere, env });
    return JSON.parse(stdout);
  };
  const router = await startRouterProcess({ ROUTER_CONFIG: configDir, ROUTER_SECRET_KEY: env.ROUTER_SECRET_KEY, ROUTER_STORAGE: '' });
  try {
    const { account } = await cli('accounts', 'create', '--email', 'path@example.com', '--plan', 'pro');
    const { key } = await cli('keys', 'create', '--account', account.id);
    const response = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${key}`, 'user-agent': 'router-tests/1.0' } });
    expect(response.status).toBe(200);
    expect(existsSync(join(configDir, 'state', 'router.db'))).toBe(true);
    expect(existsSync(join(elsewhere, 'state'))).toBe(false);
  } finally {
    await router.stop();
    rmSync(configDir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  }
});
