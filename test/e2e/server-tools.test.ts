/**
 * Billable features beyond tokens on native pass-through, through the official SDKs (issue 30): server
 * tools (Anthropic web search, MCP connectors, service tiers; OpenAI hosted Responses tools) are refused
 * on the operator's keys unless the plan allows them, and where allowed are bounded, held by the spend
 * gate at their per-call price, settled from the upstream's report, and shown in usage.cost, the ledger
 * and the receipt; the account's own keys pass them through unchanged; unlisted top-level fields never
 * reach an upstream.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from '../../src/core/secret-box.js';
import { quotaPeriod } from '../../src/core/quota-period.js';
import { PROVIDER_KEYS, TEST_SECRET, frontierOrder, pointProvidersAt, startFakes, waitFor, type Fakes, type TestRouter } from './router-harness.js';
import { sqliteBackend, startRouterOn, type UsageBackend } from './usage-backends.js';

const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 50 };
const MESSAGES = [{ role: 'user' as const, content: 'What happened today?' }];
/** pricing.yaml's Anthropic web search: USD 0.01 per search, in nano-USD. */
const SEARCH_NANO = 10_000_000;
/** The fake's default usage on claude-sonnet-4-5 (12 input at 3, 9 output at 15 per million tokens). */
const TOKENS_NANO = 12 * 3000 + 9 * 15_000;
const BOUND = 5;

describe('server tools on managed and own provider keys', { timeout: 60_000 }, () => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    backend = sqliteBackend();
    fakes = await startFakes();
    router = await startRouterOn(
      { ...backend, env: { ...backend.env, ANTHROPIC_API_KEY: 'sk-ant-operator-0000', OPENAI_API_KEY: 'sk-operator-0000' } },
      {
        plans: (doc: any) => {
          const plan = (id: string) => doc.plans.find((p: { id: string }) => p.id === id);
          Object.assign(plan('pro'), { managedSpendCapUsd: 5, managedServerTools: { allow: ['web_search'], maxCallsPerRequest: BOUND } });
          // A cap below five searches (USD 0.05) but above a request's tokens.
          Object.assign(plan('max'), { managedSpendCapUsd: 0.04, managedServerTools: { allow: ['web_search'], maxCallsPerRequest: BOUND } });
          doc.plans.push({ ...plan('pro'), id: 'basic', name: 'Basic', priceUsdMonthly: 5, managedSpendCapUsd: 5, managedServerTools: undefined, routeProfiles: ['router/frontier'] });
        },
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
        routes: frontierOrder(['anthropic', 'openai']),
      },
    );
  }, 60_000);
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: router.baseURL, maxRetries: 0 });
  const refusal = (call: Promise<unknown>) => call.then(() => expect.fail('expected a refusal'), (error: any) => error);
  const recordsOf = async (requestId: string) => {
    await router.server.runtime.usage.ledger!.flush();
    return router.server.runtime.usage.store.findRecords({ requestId });
  };
  const spendOf = (accountId: string) => router.server.runtime.usage.store.readSpend(accountId, quotaPeriod(Date.now()).key, new Date().toISOString());

  it('refuses web_search, MCP connectors and a priority tier on managed keys whose plan allows none, before any upstream call', async () => {
    const { key } = await router.createAccount('basic');
    const client = anthropic(key);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ tools: [WEB_SEARCH] }, 'tools[0]'],
      [{ mcp_servers: [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'x' }] }, 'mcp_servers'],
      [{ service_tier: 'auto' }, 'service_tier'],
      [{ container: 'container_123' }, 'container'],
    ];
    for (const [extra, param] of cases) {
      const error = await refusal(client.messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES, ...extra } as any));
      expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError);
      expect(error.error.error).toMatchObject({ type: 'permission_error', code: 'server_tool_not_allowed', param, accountUrl: 'http://localhost:8787/app/provider-keys' });
      expect(error.error.error.upgradeUrl ?? '').not.toContain('plan=basic');
    }
    const responses = await refusal(openai(key).responses.create({ model: 'router/frontier', input: 'hi', tools: [{ type: 'web_search' }] }));
    expect(responses).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(responses.code).toBe('server_tool_not_allowed');
    expect(responses.param).toBe('tools[0]');
    const chat = await refusal(openai(key).chat.completions.create({ model: 'router/frontier', messages: MESSAGES, web_search_options: {} } as any));
    expect(chat.code).toBe('server_tool_not_allowed');
    expect(fakes.anthropic.requests).toHaveLength(0);
    expect(fakes.openai.requests).toHaveLength(0);
    // A request without them is served on the same key; the refusals were given back to the monthly quota.
    const { response } = await client.messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES }).withResponse();
    expect(fakes.anthropic.requests).toHaveLength(1);
    expect(response.headers.get('x-quota-used')).toBe('1');
  });

  it('where the plan allows web_search: bounds max_uses, holds the searches in the estimate, and prices the reported searches', async () => {
    const { accountId, key } = await router.createAccount('pro');
    fakes.anthropic.setReply({ serverToolUse: { web_search_requests: 3 }, latencyMs: 300 });
    const pending = anthropic(key).messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES, tools: [WEB_SEARCH] } as any).withResponse();
    await waitFor(() => fakes.anthropic.requests.length > 0);
    // In flight: the hold covers the plan's bound of searches at the per-call price, beside the tokens.
    expect((await spendOf(accountId)).reservedNanoUsd).toBeGreaterThanOrEqual(BOUND * SEARCH_NANO);
    const { data, response } = await pending;
    const sent = fakes.anthropic.requests[0]!.body as { tools: Array<Record<string, unknown>> };
    expect(sent.tools).toEqual([{ ...WEB_SEARCH, max_uses: BOUND }]);
    expect(fakes.anthropic.requests[0]!.headers['x-api-key']).toBe('sk-ant-operator-0000');
    const cost = (data.usage as any).cost;
    expect(Math.round(cost * 1e9)).toBe(TOKENS_NANO + 3 * SEARCH_NANO);
    expect((data.usage as any).cost_details.server_tools).toBe(0.03);
    const requestId = response.headers.get('x-request-id')!;
    const [record] = await recordsOf(requestId);
    expect(record).toMatchObject({ credentialSource: 'managed', costNanoUsd: TOKENS_NANO + 3 * SEARCH_NANO, meteredNanoUsd: TOKENS_NANO + 3 * SEARCH_NANO });
    expect(record!.costParts!.serverTools).toBe(3 * SEARCH_NANO);
    expect(record!.usage!.serverToolCalls).toEqual({ web_search: 3 });
    expect(await spendOf(accountId)).toMatchObject({ reservedNanoUsd: 0, spentNanoUsd: TOKENS_NANO + 3 * SEARCH_NANO });
    const receipt = (await openai(key).get('/generation', { query: { id: requestId } })) as { data: Record<string, any> };
    expect(receipt.data.total_cost).toBe(cost);
    expect(receipt.data.server_tool_calls).toEqual({ web_search: 3 });
  });

  it('settles searches reported in a stream’s message_delta', async () => {
    const { key } = await router.createAccount('pro');
    fakes.anthropic.setReply({ serverToolUse: { web_search_requests: 2 } });
    const stream = await anthropic(key).messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES, tools: [WEB_SEARCH], stream: true } as any);
    let delta: any;
    for await (const event of stream as any) if (event.type === 'message_delta') delta = event;
    expect(delta.usage.server_tool_use).toEqual({ web_search_requests: 2 });
    expect(Math.round(delta.usage.cost * 1e9)).toBe(TOKENS_NANO + 2 * SEARCH_NANO);
  });

  it('refuses with 402 a request whose searches the spend cap cannot hold, while the same request without them passes', async () => {
    const { key } = await router.createAccount('max');
    const error = await refusal(anthropic(key).messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES, tools: [WEB_SEARCH] } as any));
    expect(error.status).toBe(402);
    expect(error.error.error.code).toBe('spend_cap_reached');
    expect(fakes.anthropic.requests).toHaveLength(0);
    await anthropic(key).messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES });
    expect(fakes.anthropic.requests).toHaveLength(1);
  });

  it('prices hosted Responses tools from the answer’s call items, with max_tool_calls bounded', async () => {
    const { key } = await router.createAccount('pro');
    fakes.anthropic.failAlways({ kind: 'status', status: 503 });
    fakes.openai.setReply({ hostedCalls: ['web_search_call', 'web_search_call'] });
    const response = await openai(key).responses.create({ model: 'router/frontier', input: 'hi', tools: [{ type: 'web_search' }], max_tool_calls: 40 } as any);
    const sent = fakes.openai.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent.max_tool_calls).toBe(BOUND);
    expect(sent.tools).toEqual([{ type: 'web_search' }]);
    // gpt-4.1: 10 input at 2 and 20 output at 8 per million tokens, and two searches at USD 0.01.
    expect(Math.round((response.usage as any).cost * 1e9)).toBe(10 * 2000 + 20 * 8000 + 2 * SEARCH_NANO);
  });

  it('passes every one of them through unchanged on the account’s own provider key', async () => {
    const { accountId, key } = await router.createAccount('basic');
    await router.server.runtime.store.setProviderKey({ accountId, providerId: 'anthropic', sealed: sealSecret(PROVIDER_KEYS.anthropic, TEST_SECRET), last4: '5678' }, 'test');
    const extra = { tools: [WEB_SEARCH], service_tier: 'auto', mcp_servers: [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'x' }] };
    fakes.anthropic.setReply({ serverToolUse: { web_search_requests: 1 } });
    const { data } = await anthropic(key).messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES, ...extra } as any).withResponse();
    const sent = fakes.anthropic.requests[0]!;
    expect(sent.headers['x-api-key']).toBe(PROVIDER_KEYS.anthropic);
    expect(sent.body).toMatchObject(extra);
    // The account pays its provider itself; the ledger still prices what was reported.
    expect(Math.round((data.usage as any).cost * 1e9)).toBe(TOKENS_NANO + SEARCH_NANO);
  });

  it('never forwards a top-level field the API does not list: refused with 400 naming it, or dropped when it is the router’s', async () => {
    const { key } = await router.createAccount('pro');
    const error = await refusal(anthropic(key).messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES, betas_extra: true } as any));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.error.error).toMatchObject({ code: 'unsupported_parameter', param: 'betas_extra' });
    const responses = await refusal(openai(key).responses.create({ model: 'router/frontier', input: 'hi', web_search_options: {} } as any));
    expect(responses.code).toBe('unsupported_parameter');
    expect(responses.param).toBe('web_search_options');
    expect(fakes.anthropic.requests).toHaveLength(0);
    expect(fakes.openai.requests).toHaveLength(0);
    // OpenRouter's own fields are the router's: dropped on every route, never sent upstream (`preset` is applied, then
    // taken off: presets.test.ts).
    await anthropic(key).messages.create({ model: 'router/frontier', max_tokens: 64, messages: MESSAGES, transforms: [], route: 'fallback' } as any);
    expect(Object.keys(fakes.anthropic.requests[0]!.body as object).sort()).toEqual(['max_tokens', 'messages', 'model']);
    fakes.anthropic.failAlways({ kind: 'status', status: 503 });
    await openai(key).chat.completions.create({ model: 'router/frontier', messages: MESSAGES, models: ['a'], usage: { include: true } } as any);
    const chat = fakes.openai.requests.at(-1)!.body as Record<string, unknown>;
    expect(['models', 'usage'].filter((field) => field in chat)).toEqual([]);
  });
});
