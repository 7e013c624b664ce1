import { describe, expect, it } from 'vitest';
import type { RouteProfileConfig } from '../../../src/config/types.js';
import { RouterError } from '../../../src/core/errors.js';
import type { ChatRequest } from '../../../src/formats/openai-chat.js';
import type { AdapterRegistry, ProviderAdapter } from '../../../src/providers/adapter.js';
import { CredentialHealth } from '../../../src/routing/credential-health.js';
import { outputLimitsFrom } from '../../../src/routing/output-limits.js';
import { ProviderHealth } from '../../../src/routing/provider-health.js';
import { RoutingEngine } from '../../../src/routing/routing-engine.js';
import type { UpstreamClient } from '../../../src/upstream/upstream-client.js';
import { testProvider } from './test-provider.js';


const route = (tiers: Array<Array<{ provider: string; model: string }>>): RouteProfileConfig => ({
  id: 'test/auto',
  family: 'frontier',
  description: '',
  quotaWeight: 1,
  retryBudget: 3,
  promptCaching: 'auto',
  tiers: tiers.map((tier) => tier.map((target) => ({ ...target, weight: 1 }))),
});

const ASKED: ChatRequest = {
  model: 'test/auto',
  messages: [
    { role: 'system', content: 'Long house rules' },
    { role: 'user', content: 'Hi' },
  ],
};

/**
 * An engine whose adapters record the chat each attempt hands them and refuse it (nothing is sent), so
 * the test sees what `promptCaching: auto` made of the request for each provider.
 */
function engineRecording() {
  const received: Array<{ provider: string; chat: ChatRequest }> = [];
  const recording = (breakpoints: boolean): ProviderAdapter => ({
    ...(breakpoints ? { cacheBreakpoints: true as const } : {}),
    buildChatRequest: (chat, ctx) => {
      received.push({ provider: ctx.provider.id, chat });
      throw new RouterError('unsupported_parameter', 'recorded, not sent');
    },
    parseChatResponse: () => {
      throw new Error('never sent');
    },
    createChatStreamTranslator: () => {
      throw new Error('never sent');
    },
    parseError: () => ({ status: 502, type: 'upstream_error', code: null, message: 'never sent' }),
  });
  const adapters = { openai: recording(false), gemini: recording(false), anthropic: recording(true) } as unknown as AdapterRegistry;
  const clock = { now: () => 1_000_000 };
  const breaker = { failureThreshold: 1, cooldownMs: 30_000 };
  const engine = new RoutingEngine({
    providers: new Map([
      ['openai', testProvider('openai', 'openai')],
      ['gemini', testProvider('gemini', 'gemini')],
      ['anthropic', testProvider('anthropic', 'anthropic')],
    ]),
    health: new ProviderHealth(breaker, clock),
    credentialHealth: new CredentialHealth(breaker, clock),
    clock,
    random: () => 0,
    credentialsOf: async () => () => ({ value: 'sk-test', source: 'byok' }),
    adapters,
    client: {} as UpstreamClient,
    outputLimits: outputLimitsFrom([]),
  });
  const ask = async (tiers: Array<Array<{ provider: string; model: string }>>) => {
    received.length = 0;
    const call = { route: route(tiers), accountId: 'acct_1', signal: new AbortController().signal };
    await expect(engine.completeChat(call, structuredClone(ASKED))).rejects.toBeInstanceOf(RouterError);
    return [...received];
  };
  /** The same as a Responses request, translated to chat for each candidate. */
  const askResponses = async (tiers: Array<Array<{ provider: string; model: string }>>) => {
    received.length = 0;
    const call = { route: route(tiers), accountId: 'acct_1', signal: new AbortController().signal };
    await expect(engine.completeResponses(call, { model: 'test/auto', instructions: 'Long house rules', input: 'Hi' })).rejects.toBeInstanceOf(RouterError);
    return [...received];
  };
  return { ask, askResponses };
}

const hasBreakpoint = (chat: ChatRequest) => JSON.stringify(chat).includes('cache_control');

describe("promptCaching: auto adds breakpoints only where a provider's format reads them", () => {
  it('a route of one OpenAI-compatible or Gemini provider gets the request without breakpoints', async () => {
    const { ask } = engineRecording();
    for (const only of ['openai', 'gemini']) {
      const [attempt] = await ask([[{ provider: only, model: 'm' }]]);
      expect(attempt!.provider).toBe(only);
      expect(attempt!.chat.messages).toEqual(ASKED.messages);
      expect(hasBreakpoint(attempt!.chat)).toBe(false);
    }
  });

  it('a route of one Anthropic provider gets the breakpoint on its system prompt', async () => {
    const { ask } = engineRecording();
    const [attempt] = await ask([[{ provider: 'anthropic', model: 'claude' }]]);
    expect(attempt!.chat.messages[0]).toEqual({ role: 'system', content: 'Long house rules', cache_control: { type: 'ephemeral' } });
  });

  it('a route of several providers keeps them for every candidate (they mark the prefix the sticky key follows)', async () => {
    const { ask } = engineRecording();
    const attempts = await ask([[{ provider: 'openai', model: 'm' }], [{ provider: 'anthropic', model: 'claude' }]]);
    expect(attempts.map((attempt) => attempt.provider)).toEqual(['openai', 'anthropic']);
    expect(attempts.map((attempt) => hasBreakpoint(attempt.chat))).toEqual([true, true]);
  });

  it("Responses translated to chat: each candidate gets them as its own format reads them", async () => {
    const { askResponses } = engineRecording();
    const attempts = await askResponses([[{ provider: 'openai', model: 'm' }], [{ provider: 'anthropic', model: 'claude' }]]);
    expect(attempts.map((attempt) => attempt.provider)).toEqual(['openai', 'anthropic']);
    expect(attempts.map((attempt) => hasBreakpoint(attempt.chat))).toEqual([false, true]);
  });
});
