/**
 * Every chat and Responses answer states its cost: `usage.cost` (USD) equals the ledger's record to the
 * nano-dollar, with each token type priced apart (a recorded Anthropic answer with cache reads and 5-minute
 * and 1-hour cache writes), in JSON, the final stream usage chunk and response.completed.
 */
import Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../src/stores/ledger-store.js';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { PROVIDER_KEYS, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const PRICE = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 };
// 2048 uncached, 1800 read, 456 written for 5 minutes and 100 for an hour, 503 out (the fixture's usage).
const NANO = { input: 2048 * 3000, cache_read: 1800 * 300, cache_write: 456 * 3750, cache_write_1h: 100 * 6000, output: 503 * 15000, reasoning: 0 };
const TOTAL_NANO = Object.values(NANO).reduce((sum, part) => sum + part, 0);
const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Summarize the contract' }] };

function anthropicOnly(server?: (doc: any) => void) {
  return {
    providers: pointProvidersAt({}, (doc: any) => {
      doc.providers.find((p: { id: string }) => p.id === 'anthropic').prices['claude-sonnet-4-5'] = PRICE;
    }),
    routes: (doc: any) => void (doc.routes.find((route: { id: string }) => route.id === 'router/frontier').tiers = [[{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]]),
    server: (doc: any) => {
      doc.ledger = { flushIntervalMs: 100 };
      server?.(doc);
    },
  };
}

describe('the cost of every answer', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;

  const recordOf = async (requestId: string | null): Promise<LedgerRecord> => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const [found] = await router.server.runtime.usage.store.findRecords({ requestId: requestId ?? '' });
      if (found || Date.now() > deadline) return found!;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    fakes = await startFakes();
    const patch = anthropicOnly();
    router = await startTestRouter({ patch: { ...patch, providers: (doc: any) => { pointProvidersAt(fakes.urls)(doc); patch.providers(doc); } } });
    client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic } })).key);
    fakes.anthropic.setReply({ recorded: loadRecorded('anthropic/cache-write-1h') });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('chat JSON: usage.cost is the ledger record’s cost, and cost_details prices each token type', async () => {
    const { data, response } = await client.chat.completions.create(HELLO).withResponse();
    const usage = data.usage as unknown as { cost: number; cost_details: Record<string, number> };
    expect(usage.cost).toBe(TOTAL_NANO / 1e9);
    expect(usage.cost_details).toEqual({ ...Object.fromEntries(Object.entries(NANO).map(([type, nano]) => [type, nano / 1e9])), server_tools: 0, cache_savings: (1800 * 3000 - 1800 * 300) / 1e9 });
    const record = await recordOf(response.headers.get('x-request-id'));
    expect(record.costNanoUsd).toBe(TOTAL_NANO);
    expect(Math.round(usage.cost * 1e9)).toBe(record.costNanoUsd);
  });

  it('chat stream: the final usage chunk carries the same cost', async () => {
    const { data: stream, response } = await client.chat.completions.create({ ...HELLO, stream: true, stream_options: { include_usage: true } }).withResponse();
    let cost: number | undefined;
    for await (const chunk of stream) if (chunk.usage) cost = (chunk.usage as unknown as { cost: number }).cost;
    expect(cost).toBe(TOTAL_NANO / 1e9);
    expect((await recordOf(response.headers.get('x-request-id'))).costNanoUsd).toBe(TOTAL_NANO);
  });

  it('Responses JSON and response.completed carry it too', async () => {
    const { data, response } = await client.responses.create({ model: 'router/frontier', input: 'Summarize' }).withResponse();
    expect((data.usage as unknown as { cost: number }).cost).toBe(TOTAL_NANO / 1e9);
    expect((await recordOf(response.headers.get('x-request-id'))).costNanoUsd).toBe(TOTAL_NANO);
    const stream = await client.responses.create({ model: 'router/frontier', input: 'Summarize', stream: true });
    let cost: number | undefined;
    for await (const event of stream) if (event.type === 'response.completed') cost = (event.response.usage as unknown as { cost: number }).cost;
    expect(cost).toBe(TOTAL_NANO / 1e9);
  });
});

describe('the cost of every Message', () => {
  it('usage.cost and usage.cost_details on a /v1/messages answer and on its stream’s message_delta equal the ledger record', async () => {
    const fakes = await startFakes();
    const patch = anthropicOnly();
    const router = await startTestRouter({ patch: { ...patch, providers: (doc: any) => { pointProvidersAt(fakes.urls)(doc); patch.providers(doc); } } });
    try {
      const { key } = await router.createAccount('pro', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic } });
      const anthropic = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
      fakes.anthropic.setReply({ recorded: loadRecorded('anthropic/cache-write-1h') });
      const request = { model: 'router/frontier', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Summarize' }] };
      const { data: message, response } = await anthropic.messages.create(request).withResponse();
      const usage = message.usage as unknown as { cost: number; cost_details: Record<string, number> };
      await router.server.runtime.usage.ledger!.flush();
      const [record] = await router.server.runtime.usage.store.findRecords({ requestId: response.headers.get('x-request-id')! });
      expect(Math.round(usage.cost * 1e9)).toBe(record!.costNanoUsd);
      expect(usage.cost).toBe(TOTAL_NANO / 1e9);
      expect(usage.cost_details.cache_write_1h).toBe(NANO.cache_write_1h / 1e9);

      const stream = anthropic.messages.stream(request);
      let streamed: { cost?: number } | undefined;
      for await (const event of stream) if (event.type === 'message_delta') streamed = event.usage as unknown as { cost?: number };
      expect(streamed?.cost).toBe(TOTAL_NANO / 1e9);
    } finally {
      await router.close();
      await fakes.close();
    }
  });
});

describe('ledger.costInResponses: false', () => {
  it('leaves the cost out of answers (the ledger still records it)', async () => {
    const fakes = await startFakes();
    const patch = anthropicOnly((doc) => void (doc.ledger.costInResponses = false));
    const router = await startTestRouter({ patch: { ...patch, providers: (doc: any) => { pointProvidersAt(fakes.urls)(doc); patch.providers(doc); } } });
    try {
      const client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic } })).key);
      fakes.anthropic.setReply({ recorded: loadRecorded('anthropic/cache-write-1h') });
      const completion = await client.chat.completions.create(HELLO);
      expect(completion.usage).not.toHaveProperty('cost');
      expect(completion.usage).not.toHaveProperty('cost_details');
    } finally {
      await router.close();
      await fakes.close();
    }
  });
});
