import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlanConfig, ProviderConfig, RouteProfileConfig } from '../../../src/config/types.js';
import type { LedgerStore } from '../../../src/stores/ledger-store.js';
import { createSqliteLedgerStore } from '../../../src/stores/sqlite/create-sqlite-ledger-store.js';
import { createPriceBook } from '../../../src/usage/model-prices.js';
import { SpendGate } from '../../../src/usage/spend-gate.js';
import { ManualClock } from '../../contracts/store-contract.js';

const providers = [
  { id: 'openai', defaultMaxTokens: 4096, prices: { 'gpt-4.1': { input: 2, output: 8 } } },
  { id: 'anthropic', defaultMaxTokens: 8192, prices: { claude: { input: 3, output: 15 } } },
] as unknown as ProviderConfig[];
const route = { id: 'router/frontier', tiers: [[{ provider: 'openai', model: 'gpt-4.1', weight: 1 }], [{ provider: 'anthropic', model: 'claude', weight: 1 }]] } as unknown as RouteProfileConfig;
const capped = { id: 'pro', name: 'Pro', managedSpendCapUsd: 0.01 } as PlanConfig;

describe('the spend gate', () => {
  let store: LedgerStore;
  let behind = false;
  let managed = true;
  const gate = () =>
    new SpendGate({
      store,
      ledgerBehind: () => behind,
      prices: createPriceBook(providers, { openai: { web_search: 0.01 }, anthropic: { web_search: 0.02 } }),
      providers: new Map(providers.map((provider) => [provider.id, provider])),
      usesManagedAccess: async () => managed,
      clock: new ManualClock(Date.UTC(2026, 10, 15)),
      reservationTtlMs: 60_000,
      plans: new Map(),
    });

  beforeEach(async () => {
    store = createSqliteLedgerStore({ path: ':memory:', now: () => '2026-11-15T00:00:00.000Z' });
    await store.migrate();
    behind = false;
    managed = true;
  });
  afterEach(() => store.close());

  describe('server tools on managed keys', () => {
    const searching = { ...capped, managedSpendCapUsd: 1, managedServerTools: { allow: ['web_search'], maxCallsPerRequest: 4 } } as unknown as PlanConfig;
    const body = () => ({ model: 'router/frontier', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    const tools = (features: Array<{ name: string; param: string; maxCalls?: number }>) => {
      const limited: number[] = [];
      return { use: { features, limitCalls: (max: number) => void limited.push(max) }, limited };
    };

    it('refuses a tool the plan does not allow, naming its field, before holding anything', async () => {
      const { use } = tools([{ name: 'web_fetch', param: 'tools[1]' }]);
      const refused = await gate().reserve({ accountId: 'acct_a', plan: searching, route, body: body(), serverTools: use }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'server_tool_not_allowed', param: 'tools[1]' });
      const none = await gate().reserve({ accountId: 'acct_a', plan: capped, route, body: body(), serverTools: tools([{ name: 'web_search', param: 'tools[0]' }]).use }).catch((error: unknown) => error);
      expect(none).toMatchObject({ code: 'server_tool_not_allowed' });
      expect((await store.readSpend('acct_a', '2026-11', '2026-11-15T00:00:00.000Z')).reservedNanoUsd).toBe(0);
    });

    it('holds an allowed tool to the plan’s bound and adds that many calls at the dearest price of the route', async () => {
      const { use, limited } = tools([{ name: 'web_search', param: 'tools[0]', maxCalls: 50 }]);
      const request = { accountId: 'acct_a', plan: searching, route, body: body(), serverTools: use };
      const withoutTools = gate().estimate({ ...request, serverTools: undefined });
      const reservation = await gate().reserve(request);
      expect(limited).toEqual([4]);
      expect(reservation!.estimateNanoUsd).toBe(withoutTools + 4 * 20_000_000);
    });

    it('is not consulted for requests on the account’s own keys', async () => {
      managed = false;
      const { use, limited } = tools([{ name: 'mcp', param: 'mcp_servers' }]);
      expect(await gate().reserve({ accountId: 'acct_a', plan: capped, route, body: body(), serverTools: use })).toBeUndefined();
      expect(limited).toEqual([]);
    });
  });

  it('estimates the dearest outcome: body bytes as prompt tokens, the output cap times n, at the dearest price', () => {
    const body = { model: 'router/frontier', messages: [{ role: 'user', content: 'héllo' }] };
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const request = { accountId: 'acct_a', plan: capped, route };
    const withMax = { ...body, max_tokens: 100 };
    expect(gate().estimate({ ...request, body: withMax })).toBe(Buffer.byteLength(JSON.stringify(withMax)) * 3000 + 100 * 15_000);
    const withCap = { ...body, max_completion_tokens: 50, n: 3 };
    expect(gate().estimate({ ...request, body: withCap })).toBe(Buffer.byteLength(JSON.stringify(withCap)) * 3000 + 150 * 15_000);
    // No cap from the client: the largest default output cap of the route's providers.
    expect(gate().estimate({ ...request, body })).toBe(bytes * 3000 + 8192 * 15_000);
  });

  it('estimates a fusion request for its whole run before the panel starts: every call, the panel’s answers in later prompts', () => {
    const fusion = {
      mode: 'analyze-then-write',
      panel: [{ tiers: route.tiers }, { tiers: route.tiers }, { tiers: route.tiers }],
      judge: { tiers: [[{ provider: 'openai', model: 'gpt-4.1', weight: 1 }]] },
      minAnswers: 1,
      panelTimeoutMs: 1000,
      maxPanelOutputTokens: 100,
      keepAliveMs: 1000,
      maxToolRounds: 2,
    } as RouteProfileConfig['fusion'];
    const fusionRoute = { ...route, id: 'router/fusion', fusion } as RouteProfileConfig;
    const body = { model: 'router/fusion', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 };
    const prompt = Buffer.byteLength(JSON.stringify(body)) + 3 * 100 + 4096;
    // 3 members + 2 judge replies (the judge has one target: one reply and its retry) + the writer = 6 calls at the dearest price.
    expect(gate().estimate({ accountId: 'acct_a', plan: capped, route: fusionRoute, body })).toBe(6 * (prompt * 3000 + 100 * 15_000));
    // The router:fusion tool on another profile: its own call, and per round a model turn plus a fusion run.
    const toolBody = { ...body, model: 'router/frontier' };
    const toolPrompt = Buffer.byteLength(JSON.stringify(toolBody)) + 2 * (3 * 100 + 4096);
    expect(gate().estimate({ accountId: 'acct_a', plan: capped, route, body: toolBody, toolFusion: fusionRoute })).toBe((1 + 2 * 7) * (toolPrompt * 3000 + 100 * 15_000));
  });

  it('sends a managed request that names no output cap with the one its estimate assumed, in the field of its API', async () => {
    const roomy = { ...capped, managedSpendCapUsd: 10 };
    const chat: Record<string, unknown> = { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] };
    const responses: Record<string, unknown> = { model: 'router/frontier', input: 'hi' };
    const capturedChat = await gate().reserve({ accountId: 'acct_a', plan: roomy, route, body: chat });
    await gate().reserve({ accountId: 'acct_a', plan: roomy, route, body: responses });
    expect(chat.max_completion_tokens).toBe(8192);
    expect(responses.max_output_tokens).toBe(8192);
    expect(capturedChat?.estimateNanoUsd).toBe(gate().estimate({ accountId: 'acct_a', plan: roomy, route, body: chat }));
    const own: Record<string, unknown> = { model: 'router/frontier', messages: [], max_tokens: 10 };
    await gate().reserve({ accountId: 'acct_a', plan: roomy, route, body: own });
    expect(own).not.toHaveProperty('max_completion_tokens');
    managed = false;
    const byok: Record<string, unknown> = { model: 'router/frontier', messages: [] };
    await gate().reserve({ accountId: 'acct_a', plan: roomy, route, body: byok });
    expect(byok).not.toHaveProperty('max_completion_tokens');
  });

  it('holds the estimate for a managed request and refuses once the cap is held', async () => {
    const request = { accountId: 'acct_a', plan: capped, route, body: { max_tokens: 100 } };
    const held = await gate().reserve(request);
    expect(held).toMatchObject({ id: expect.stringMatching(/^spr_[0-9a-f]{24}$/), estimateNanoUsd: gate().estimate(request) });
    while ((await store.readSpend('acct_a', '2026-11', '2026-11-15T00:00:00.000Z')).reservedNanoUsd < 10_000_000) await gate().reserve(request);
    await expect(gate().reserve(request)).rejects.toMatchObject({ code: 'spend_cap_reached', status: 402, details: { capUsd: '0.01', resetsAt: '2026-12-01T00:00:00.000Z' } });
  });

  it('lets BYOK requests and plans without a cap through untouched', async () => {
    managed = false;
    expect(await gate().reserve({ accountId: 'acct_a', plan: capped, route, body: {} })).toBeUndefined();
    managed = true;
    expect(await gate().reserve({ accountId: 'acct_a', plan: { ...capped, managedSpendCapUsd: undefined }, route, body: {} })).toBeUndefined();
    expect(await store.readSpend('acct_a', '2026-11', '2026-11-15T00:00:00.000Z')).toEqual({ spentNanoUsd: 0, reservedNanoUsd: 0 });
  });

  it('refuses managed requests while the ledger is behind, rather than leave them unmetered', async () => {
    behind = true;
    await expect(gate().reserve({ accountId: 'acct_a', plan: capped, route, body: {} })).rejects.toMatchObject({ code: 'store_unavailable', headers: { 'retry-after': '5' } });
  });
});
