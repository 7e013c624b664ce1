/**
 * The ledger keeps each token type and its cost, and every view shows them with the same totals: a
 * recorded Anthropic answer with cache reads and 5-minute and 1-hour cache writes, sent through the
 * official SDK; the ledger's records, `router usage` (the built CLI on the same database), its CSV,
 * the account app's usage page and its CSV export agree to the nano-dollar, and each answer's
 * `usage.cost_details` is its record's split.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatNanoUsd } from '../../src/usage/nano-usd.js';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { AppClient, shownKey, startAppRouter, type AppRouter } from './app-harness.js';
import { PROVIDER_KEYS, TEST_SECRET, pointProvidersAt, runCli, runCliJson, startFakes, type Fakes } from './router-harness.js';
import { usageBackends, type UsageBackend } from './usage-backends.js';

const PRICE = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 };
// The fixture's usage: 2048 uncached, 1800 read, 456 written for 5 minutes and 100 for an hour, 503 out.
const NANO = { input: 2048 * 3000, cacheRead: 1800 * 300, cacheWrite: 456 * 3750, cacheWrite1h: 100 * 6000, output: 503 * 15000, reasoning: 0 };
const COST = Object.values(NANO).reduce((sum, part) => sum + part, 0);
const SAVINGS = 1800 * 3000 - 1800 * 300;
const REQUESTS = 3;

describe.each(usageBackends('token_types'))('each token type and its cost in the ledger, router usage, CSV and the usage page on %s', { timeout: 120_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: AppRouter;
  let browser: AppClient;
  let accountId: string;
  let cliEnv: Record<string, string>;
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    router = await startAppRouter({
      env: backend.env,
      patch: {
        server: backend.server,
        providers: pointProvidersAt(fakes.urls, (doc: any) => {
          doc.providers.find((p: { id: string }) => p.id === 'anthropic').prices['claude-sonnet-4-5'] = PRICE;
        }),
        routes: (doc: any) => void (doc.routes.find((route: { id: string }) => route.id === 'router/frontier').tiers = [[{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]]),
      },
    });
    cliEnv = { ROUTER_CONFIG: router.configDir, ROUTER_SECRET_KEY: TEST_SECRET, ...backend.env };
    browser = new AppClient(router.url);
    await browser.signUp('token-types@example.com', 'correct horse battery staple');
    const key = shownKey((await browser.follow(await browser.post('/app/onboarding/key', {}))).html)!;
    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'anthropic', key: PROVIDER_KEYS.anthropic });
    accountId = (await router.server.runtime.store.findLoginByEmail('token-types@example.com'))!.account.id;
    fakes.anthropic.setReply({ recorded: loadRecorded('anthropic/cache-write-1h') });
    const client = new OpenAI({ apiKey: key, baseURL: router.baseURL, maxRetries: 0 });
    for (let i = 0; i < REQUESTS; i++) {
      const { data, response } = await client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'Summarize' }] }).withResponse();
      const usage = data.usage as unknown as { cost: number; cost_details: Record<string, number> };
      expect(usage.cost).toBe(COST / 1e9);
      await router.server.runtime.usage.ledger!.flush();
      const [record] = await router.server.runtime.usage.store.findRecords({ requestId: response.headers.get('x-request-id')! });
      // The answer's cost_details is the record's split, to the nano-dollar.
      expect(record!.costParts).toEqual({ ...NANO, serverTools: 0, cacheSavings: SAVINGS });
      expect(record!.usage).toMatchObject({ cacheWrite: 556, cacheWrite1h: 100, cached: 1800 });
      expect(usage.cost_details).toEqual({
        input: NANO.input / 1e9,
        cache_read: NANO.cacheRead / 1e9,
        cache_write: NANO.cacheWrite / 1e9,
        cache_write_1h: NANO.cacheWrite1h / 1e9,
        output: NANO.output / 1e9,
        reasoning: 0,
        server_tools: 0,
        cache_savings: SAVINGS / 1e9,
      });
    }
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  it('router usage --json totals each token type and its cost, and the parts add up to the cost', async () => {
    const report = await runCliJson(cliEnv, 'usage', '--account', accountId, '--from', today(), '--to', today());
    expect(report.totals).toMatchObject({
      requests: REQUESTS,
      cachedTokens: 1800 * REQUESTS,
      cacheWriteTokens: 556 * REQUESTS,
      cacheWrite1hTokens: 100 * REQUESTS,
      costNanoUsd: COST * REQUESTS,
      inputCostNanoUsd: NANO.input * REQUESTS,
      cacheReadCostNanoUsd: NANO.cacheRead * REQUESTS,
      cacheWriteCostNanoUsd: NANO.cacheWrite * REQUESTS,
      cacheWrite1hCostNanoUsd: NANO.cacheWrite1h * REQUESTS,
      outputCostNanoUsd: NANO.output * REQUESTS,
      reasoningCostNanoUsd: 0,
      cacheSavingsNanoUsd: SAVINGS * REQUESTS,
      cacheSavingsUsd: formatNanoUsd(SAVINGS * REQUESTS),
    });
    const table = await runCli(cliEnv, 'usage', '--account', accountId, '--from', today(), '--to', today());
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`cache write 1h ${formatNanoUsd(NANO.cacheWrite1h * REQUESTS)} (${100 * REQUESTS} tokens)`);
    expect(table.stdout.split('\n').find((line) => line.startsWith('total'))).toContain(formatNanoUsd(SAVINGS * REQUESTS));
  });

  it('the CLI CSV, the app CSV and the usage page show the same token types, costs and savings', async () => {
    const cli = await runCli(cliEnv, 'usage', '--account', accountId, '--by', 'day', '--from', today(), '--to', today(), '--csv');
    const cliLines = cli.stdout.trim().split('\n');
    const header = cliLines[0]!.split(',');
    const total = Object.fromEntries(cliLines.at(-1)!.split(',').map((value, column) => [header[column]!, value]));
    expect(total).toMatchObject({
      cost_usd: formatNanoUsd(COST * REQUESTS),
      cache_write_tokens: String(556 * REQUESTS),
      cache_write_1h_tokens: String(100 * REQUESTS),
      cache_read_cost_usd: formatNanoUsd(NANO.cacheRead * REQUESTS),
      cache_write_1h_cost_usd: formatNanoUsd(NANO.cacheWrite1h * REQUESTS),
      cache_savings_usd: formatNanoUsd(SAVINGS * REQUESTS),
    });

    const app = await browser.get(`/app/usage.csv?${new URLSearchParams({ by: 'day', tz: 'UTC', from: today(), to: today() })}`);
    expect(app.html.trim().split('\n').at(-1)).toBe(cliLines.at(-1));

    const page = await browser.get('/app/usage?tz=UTC&by=model');
    expect(page.status).toBe(200);
    const text = page.html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain(`Cache savings (USD) ${formatNanoUsd(SAVINGS * REQUESTS)}`);
    expect(text).toContain(`Cache-write tokens ${(556 * REQUESTS).toLocaleString('en-US')}`);
    expect(text).toContain(`Cache reads ${(1800 * REQUESTS).toLocaleString('en-US')} ${formatNanoUsd(NANO.cacheRead * REQUESTS)}`);
    expect(text).toContain(`Cache writes, 5 minutes ${(456 * REQUESTS).toLocaleString('en-US')} ${formatNanoUsd(NANO.cacheWrite * REQUESTS)}`);
    expect(text).toContain(`Cache writes, 1 hour ${100 * REQUESTS} ${formatNanoUsd(NANO.cacheWrite1h * REQUESTS)}`);
    expect(text).toContain(`Input (not cached) ${(2048 * REQUESTS).toLocaleString('en-US')} ${formatNanoUsd(NANO.input * REQUESTS)}`);
  });
});
