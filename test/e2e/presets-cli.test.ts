/**
 * `router presets list|show|create|delete` through the built CLI (bin/router, real processes) on a SQLite
 * store: versions added by create, one version shown, bad input refused with exit 2 naming the field,
 * a missing preset exit 1, and delete.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliEnv, type CliEnv } from '../support/cli-env.js';

describe('router presets (built bin/router)', { timeout: 60_000 }, () => {
  let cliEnv: CliEnv;
  let dataDir: string;
  const cli = (...args: string[]) => cliEnv.cli(...args);
  const json = (...args: string[]) => cliEnv.json(...args);

  beforeAll(() => {
    cliEnv = startCliEnv('presets-cli');
    dataDir = cliEnv.dataDir;
  });
  afterAll(() => cliEnv.cleanUp());

  it('creates, versions, lists, shows and deletes an organization’s presets', async () => {
    const { account } = await json('accounts', 'create', '--email', 'presets@example.com', '--plan', 'pro');
    const first = await json('presets', 'create', 'coder', '--account', account.id, '--name', 'Code review', '--data', '{"model":"router/frontier","temperature":0.2}');
    expect(first).toMatchObject({ created: true, preset: { slug: 'coder', name: 'Code review', currentVersion: 1 }, version: { version: 1, createdBy: 'cli' } });
    const file = join(dataDir, 'coder.json');
    writeFileSync(file, JSON.stringify({ model: 'router/frontier', temperature: 0.6, system: 'Be brief.' }));
    const second = await json('presets', 'create', 'coder', '--account', account.id, '--data', `@${file}`);
    expect(second).toMatchObject({ created: false, preset: { name: 'Code review', currentVersion: 2 }, version: { config: { temperature: 0.6, system: 'Be brief.' } } });

    expect((await json('presets', 'list', '--account', account.id)).presets).toEqual([expect.objectContaining({ slug: 'coder', currentVersion: 2, status: 'active' })]);
    const shown = await json('presets', 'show', 'coder', '1', '--account', account.id);
    expect(shown.version).toMatchObject({ version: 1, config: { model: 'router/frontier', temperature: 0.2 } });
    expect(shown.versions.map((entry: { version: number }) => entry.version)).toEqual([2, 1]);
    const human = await cli('presets', 'list', '--account', account.id);
    expect(human.stdout).toContain('@preset/coder  v2  active  Code review');

    const bad = await cli('presets', 'create', 'coder', '--account', account.id, '--data', '{"temperature":9}');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('config.temperature');
    expect((await cli('presets', 'create', 'Not A Slug', '--account', account.id, '--data', '{}')).code).toBe(2);
    expect((await cli('presets', 'create', 'x', '--account', account.id, '--data', 'not json')).code).toBe(2);
    const missing = await cli('presets', 'show', 'nope', '--account', account.id);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('router: preset nope not found');
    expect((await cli('presets', 'list', '--account', 'acct_missing')).code).toBe(1);

    expect(await json('presets', 'delete', 'coder', '--account', account.id)).toEqual({ deleted: 'coder' });
    expect((await json('presets', 'list', '--account', account.id)).presets).toEqual([]);
    expect((await cli('presets', 'delete', 'coder', '--account', account.id)).code).toBe(1);
  });
});
