/**
 * `router usage` and `router audit` through the built CLI, against the database a running router writes
 * (SQLite, and PostgreSQL + Redis when configured). Usage totals must equal the raw ledger records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../src/stores/ledger-store.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';
import {
  PROVIDER_KEYS,
  TEST_SECRET,
  frontierOrder,
  pointProvidersAt,
  postV1,
  readSse,
  runCli,
  runCliJson,
  startFakes,
  waitFor,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Say hello' }] };

// Each test runs the built CLI several times (a process each), slow on a loaded 2-core machine.
describe.each(usageBackends('usage_cli'))('router usage and router audit on %s', { timeout: 90_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: TestRouter;
  let env: Record<string, string>;
  let accountId: string;
  let keys: { first: string; second: string; firstId: string; secondId: string };
  let raw: LedgerRecord[];
  const cli = (...args: string[]) => runCliJson(env, ...args);

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    router = await startRouterOn(backend, { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic']) });
    env = { ROUTER_CONFIG: router.configDir, ROUTER_SECRET_KEY: TEST_SECRET, ...backend.env };
    // Everything an operator changes, through the CLI, so each change leaves an audit event.
    const { account } = await cli('accounts', 'create', '--email', 'usage-cli@example.com', '--plan', 'free');
    accountId = account.id;
    await cli('accounts', 'set-plan', accountId, 'pro');
    const first = await cli('keys', 'create', '--account', accountId, '--name', 'laptop');
    const second = await cli('keys', 'create', '--account', accountId, '--name', 'ci');
    keys = { first: first.key, second: second.key, firstId: first.id, secondId: second.id };
    await cli('provider-keys', 'set', '--account', accountId, '--provider', 'openai', '--key', PROVIDER_KEYS.openai);
    await cli('provider-keys', 'set', '--account', accountId, '--provider', 'anthropic', '--key', PROVIDER_KEYS.anthropic);

    expect((await postV1(router, keys.first, '/chat/completions', HELLO)).status).toBe(200);
    expect((await postV1(router, keys.first, '/chat/completions', HELLO)).status).toBe(200);
    await readSse(await postV1(router, keys.second, '/chat/completions', { ...HELLO, stream: true }));
    fakes.openai.failNext({ kind: 'status', status: 503 });
    expect((await postV1(router, keys.second, '/chat/completions', HELLO)).status).toBe(200);
    fakes.openai.failNext({ kind: 'status', status: 500 });
    fakes.anthropic.failNext({ kind: 'status', status: 500 });
    expect((await postV1(router, keys.second, '/chat/completions', HELLO)).status).toBe(502);
    await waitFor(() => router.server.runtime.usage.ledger?.status().written === 5, 5000);
    raw = await router.server.runtime.usage.store.listRequests({ accountId, limit: 100 });
  }, 90_000);
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  it('prints totals that equal the raw ledger records, by day and by every other dimension', async () => {
    expect(raw).toHaveLength(5);
    const sum = (pick: (record: LedgerRecord) => number) => raw.reduce((total, record) => total + pick(record), 0);
    const expected = {
      requests: 5,
      failedRequests: 1,
      calls: 5,
      promptTokens: sum((record) => record.usage?.prompt ?? 0),
      completionTokens: sum((record) => record.usage?.completion ?? 0),
      costNanoUsd: sum((record) => record.costNanoUsd ?? 0),
    };
    const byDay = await cli('usage', '--account', accountId);
    expect(byDay.totals).toMatchObject(expected);
    expect(byDay.tz).toBe('UTC');
    const today = new Date().toISOString().slice(0, 10);
    expect(byDay.rows.at(-1)).toMatchObject({ group: today, requests: 5 });
    for (const by of ['key', 'route', 'provider', 'model']) {
      const report = await cli('usage', '--account', accountId, '--by', by, '--from', today, '--to', today);
      expect(report.totals).toEqual(byDay.totals);
    }
    const byKey = await cli('usage', '--account', accountId, '--by', 'key', '--from', today, '--to', today);
    expect(Object.fromEntries(byKey.rows.map((row: { group: string; requests: number }) => [row.group, row.requests]))).toEqual({ [keys.firstId]: 2, [keys.secondId]: 3 });
  });

  it('prints CSV whose total line is the same totals, and takes a time zone for day boundaries', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const json = await cli('usage', '--account', accountId, '--by', 'provider', '--from', today, '--to', today);
    const csv = await runCli(env, 'usage', '--account', accountId, '--by', 'provider', '--from', today, '--to', today, '--csv');
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'provider,requests,failed_requests,calls,prompt_tokens,completion_tokens,reasoning_tokens,cached_tokens,unknown_usage_calls,unpriced_calls,cost_usd,managed_spend_usd,' +
        'cache_write_tokens,cache_write_1h_tokens,input_cost_usd,cache_read_cost_usd,cache_write_cost_usd,cache_write_1h_cost_usd,output_cost_usd,reasoning_cost_usd,cache_savings_usd,response_cache_hits,response_cache_saved_usd,member,workspace',
    );
    const total = lines.at(-1)!.split(',');
    expect(total[0]).toBe('total');
    expect(Number(total[1])).toBe(json.totals.requests);
    expect(total[10]).toBe(json.totals.costUsd);
    expect(lines.slice(1, -1).map((line) => line.split(',')[0]).sort()).toEqual(['', 'anthropic', 'openai']);

    // Around today in a zone at UTC+5:45: the same requests, counted once, whichever local day they fell in.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const kathmandu = await cli('usage', '--account', accountId, '--tz', 'Asia/Kathmandu', '--from', yesterday, '--to', tomorrow);
    expect(kathmandu.rows).toHaveLength(3);
    expect(kathmandu.interval.from.endsWith('T18:15:00.000Z')).toBe(true);
    expect(kathmandu.totals.requests).toBe(5);
  });

  it('prints a table for people, and refuses bad arguments with exit 2 and an unknown account with exit 1', async () => {
    const table = await runCli(env, 'usage', '--account', accountId, '--by', 'key');
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`${keys.firstId} (laptop)`);
    expect(table.stdout.split('\n').find((line) => line.startsWith('total'))).toMatch(/^total\s+5\s+1\s/);
    expect(table.stdout).toMatch(/cost by token type, USD: input \d+\.\d+, cache read /);
    expect((await runCli(env, 'usage', '--account', accountId, '--tz', 'Mars/Olympus')).code).toBe(2);
    expect((await runCli(env, 'usage', '--account', accountId, '--by', 'week')).code).toBe(2);
    expect((await runCli(env, 'usage', '--account', accountId, '--json', '--csv')).code).toBe(2);
    expect((await runCli(env, 'usage', '--account', accountId, '--from', '2026-13-01')).code).toBe(2);
    const missing = await runCli(env, 'usage', '--account', 'acct_missing');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('account acct_missing not found');
  });

  it('without --account sums every account: totals equal the sum of the per-account reports, by day, account, plan, route and provider', async () => {
    const { account: other } = await cli('accounts', 'create', '--email', 'usage-cli-other@example.com', '--plan', 'max');
    const { key } = await cli('keys', 'create', '--account', other.id);
    await cli('provider-keys', 'set', '--account', other.id, '--provider', 'openai', '--key', PROVIDER_KEYS.openai);
    expect((await postV1(router, key, '/chat/completions', HELLO)).status).toBe(200);
    await waitFor(() => router.server.runtime.usage.ledger?.status().written === 6, 5000);

    const today = new Date().toISOString().slice(0, 10);
    const range = ['--from', today, '--to', today];
    const mine = await cli('usage', '--account', accountId, ...range);
    const theirs = await cli('usage', '--account', other.id, ...range);
    const numbers = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([, value]) => typeof value === 'number'));
    const summed = Object.fromEntries(Object.entries(numbers(mine.totals)).map(([name, value]) => [name, (value as number) + (theirs.totals[name] as number)]));
    expect(summed.requests).toBe(6);

    const all = await cli('usage', ...range);
    expect(all).toMatchObject({ accountId: null, accounts: 2, by: 'day' });
    expect(numbers(all.totals)).toEqual(summed);
    for (const by of ['account', 'plan', 'route', 'provider', 'model']) {
      const report = await cli('usage', '--by', by, ...range);
      expect(numbers(report.totals), by).toEqual(summed);
    }
    const byAccount = await cli('usage', '--by', 'account', ...range);
    expect(Object.fromEntries(byAccount.rows.map((row: { group: string; requests: number }) => [row.group, row.requests]))).toEqual({ [accountId]: 5, [other.id]: 1 });
    const byPlan = await cli('usage', '--by', 'plan', ...range);
    expect(Object.fromEntries(byPlan.rows.map((row: { group: string; requests: number }) => [row.group, row.requests]))).toEqual({ pro: 5, max: 1 });

    const table = await runCli(env, 'usage', '--by', 'provider', ...range);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toBe(`usage of all 2 accounts from ${today} to ${today} (UTC), by provider`);
    expect(table.stdout.split('\n').find((line) => line.startsWith('total'))).toMatch(/^total\s+6\s+1\s/);
    const csv = await runCli(env, 'usage', '--by', 'account', ...range, '--csv');
    expect(csv.stdout.trim().split('\n').at(-1)!.split(',').slice(0, 2)).toEqual(['total', '6']);
    const byKey = await runCli(env, 'usage', '--by', 'key');
    expect(byKey.code).toBe(2);
    expect(byKey.stderr).toContain('add --account');
  });

  it('lists every change to the account, its keys and provider keys as audit events, newest first', async () => {
    await cli('keys', 'rotate', keys.firstId);
    await cli('keys', 'revoke', keys.secondId);
    await cli('provider-keys', 'remove', '--account', accountId, '--provider', 'anthropic');
    await cli('accounts', 'deactivate', accountId);
    const { events } = await cli('audit', '--account', accountId);
    expect(events.map((event: { action: string }) => event.action)).toEqual([
      'account.deactivate',
      'provider_key.remove',
      'key.revoke',
      'key.rotate',
      'key.create',
      'provider_key.set',
      'provider_key.set',
      'key.create',
      'key.create',
      'account.set_plan',
      'account.create',
    ]);
    expect(events.every((event: { actor: string; accountId: string }) => event.actor === 'cli' && event.accountId === accountId)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(PROVIDER_KEYS.openai);
    expect(JSON.stringify(events)).not.toContain(keys.first);
  });

  it('records the plans and the managed-access state at start as system audit events, once per change', async () => {
    const { events } = await cli('audit', '--limit', '1000');
    const system = events.filter((event: { actor: string }) => event.actor === 'system');
    expect(system.map((event: { action: string }) => event.action).sort()).toEqual(['config.managed_access', 'config.plans']);
    const plans = system.find((event: { action: string }) => event.action === 'config.plans');
    expect(plans.details.plans.map((plan: { id: string }) => plan.id)).toEqual(['free', 'pro', 'max']);
    const human = await runCli(env, 'audit', '--account', accountId, '--limit', '2');
    expect(human.code).toBe(0);
    const [header, ...lines] = human.stdout.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['at', 'actor', 'action', 'subject', 'details']);
    expect(lines.map((line) => line.split(/\s+/)[2])).toEqual(['account.deactivate', 'provider_key.remove']);
    // Columns line up under the header.
    expect(lines[0]!.indexOf('account.deactivate')).toBe(header!.indexOf('action'));
    expect((await runCli(env, 'audit', '--limit', 'lots')).code).toBe(2);
  });
});
