/**
 * A router whose `router/fusion` runs over fakes that answer deterministically per host and model: the
 * panel on the three shipped providers, two judge hosts and two writer hosts (OpenAI-compatible fakes),
 * and a model host for the router:fusion server tool on `router/frontier`. Each fake's text is a marker,
 * so a test can prove which answers reached the writer's request and which did not.
 */
import type { LedgerRecord } from '../../src/stores/ledger-store.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { PROVIDER_KEYS, pointProvidersAt, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

export const ANALYSIS = {
  consensus: ['ANALYSIS-MARK: the capital is Paris'],
  contradictions: [],
  partialCoverage: [],
  uniqueInsights: [],
  blindSpots: [],
};

/** Tokens each call reports, all different, so sums prove exactly which calls were added. */
export const USAGE = {
  openai: { inputTokens: 11, outputTokens: 21 },
  anthropic: { inputTokens: 12, outputTokens: 22 },
  gemini: { inputTokens: 13, outputTokens: 23 },
  judge1: { inputTokens: 14, outputTokens: 24 },
  judge2: { inputTokens: 15, outputTokens: 25 },
  writer1: { inputTokens: 16, outputTokens: 26 },
  writer2: { inputTokens: 17, outputTokens: 27 },
  modelhost: { inputTokens: 18, outputTokens: 28 },
} as const;

export const PANEL_TEXT = { openai: 'PANEL-OPENAI: Paris.', anthropic: 'PANEL-ANTHROPIC: Paris, on the Seine.', gemini: 'PANEL-GEMINI: Paris (since 987).' } as const;
export const WRITER_TEXT = { writer1: 'The capital of France is Paris.', writer2: 'Paris is the capital of France.' } as const;

const HOSTS = ['judge1', 'judge2', 'writer1', 'writer2', 'modelhost'] as const;
type Host = (typeof HOSTS)[number];
const MODEL_OF: Record<Host, string> = { judge1: 'judge-a', judge2: 'judge-b', writer1: 'writer-a', writer2: 'writer-b', modelhost: 'host-model' };

export interface FusionRig {
  fakes: Fakes;
  hosts: Record<Host, OpenAIFake>;
  router: TestRouter;
  account: { accountId: string; key: string };
  /** Default replies on every fake (what `reset` restores). */
  reset(): void;
  /** Every request the panel received, over the three panel fakes. */
  panelRequests(): unknown[];
  recordsOf(requestId: string | null): Promise<LedgerRecord[]>;
  close(): Promise<void>;
}

export async function startFusionRig(options: { keepAliveMs?: number; mode?: 'analyze-then-write' | 'judge-writes'; env?: Record<string, string> } = {}): Promise<FusionRig> {
  const fakes = await startFakes();
  const started = await Promise.all(HOSTS.map((name) => startOpenAIFake({ name })));
  const hosts = Object.fromEntries(HOSTS.map((name, i) => [name, started[i]!])) as Record<Host, OpenAIFake>;
  const router = await startTestRouter({
    ...(options.env ? { env: options.env } : {}),
    patch: {
      server: (doc) => void (doc.ledger = { flushIntervalMs: 100 }),
      providers: pointProvidersAt(fakes.urls, (doc) => {
        doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 };
        for (const host of HOSTS) {
          doc.providers.push({ id: host, name: host, format: 'openai', baseUrl: hosts[host].baseUrl, streamUsage: true, prices: { [MODEL_OF[host]]: { input: 1, output: 2 } } });
        }
      }),
      routes: (doc) => {
        const frontier = doc.routes.find((route: { id: string }) => route.id === 'router/frontier');
        frontier.tiers = [[{ provider: 'modelhost', model: 'host-model' }]];
        const fusion = doc.routes.find((route: { id: string }) => route.id === 'router/fusion');
        fusion.retryBudget = 3;
        fusion.tiers = [[{ provider: 'writer1', model: 'writer-a' }], [{ provider: 'writer2', model: 'writer-b' }]];
        fusion.fusion = {
          mode: options.mode ?? 'analyze-then-write',
          minAnswers: 1,
          panelTimeoutMs: 1000,
          maxPanelOutputTokens: 256,
          keepAliveMs: options.keepAliveMs ?? 10_000,
          maxToolRounds: 2,
          panel: [
            { tiers: [[{ provider: 'openai', model: 'gpt-4.1' }]] },
            { tiers: [[{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]] },
            { tiers: [[{ provider: 'gemini', model: 'gemini-2.5-pro' }]] },
          ],
          judge: { tiers: [[{ provider: 'judge1', model: 'judge-a' }], [{ provider: 'judge2', model: 'judge-b' }]] },
        };
      },
    },
  });
  const providerKeys: Record<string, string> = { ...PROVIDER_KEYS };
  for (const host of HOSTS) providerKeys[host] = `sk-test-${host}`;
  const account = await router.createAccount('pro', { providerKeys });
  const reset = () => {
    fakes.reset();
    for (const host of HOSTS) hosts[host].reset();
    fakes.openai.setReply({ text: PANEL_TEXT.openai, usage: USAGE.openai });
    fakes.anthropic.setReply({ text: PANEL_TEXT.anthropic, usage: USAGE.anthropic });
    fakes.gemini.setReply({ text: PANEL_TEXT.gemini, usage: USAGE.gemini });
    hosts.judge1.setReply({ text: JSON.stringify(ANALYSIS), usage: USAGE.judge1 });
    hosts.judge2.setReply({ text: JSON.stringify(ANALYSIS), usage: USAGE.judge2 });
    hosts.writer1.setReply({ text: WRITER_TEXT.writer1, usage: USAGE.writer1 });
    hosts.writer2.setReply({ text: WRITER_TEXT.writer2, usage: USAGE.writer2 });
    hosts.modelhost.setReply({ text: 'Plain answer from the model host.', usage: USAGE.modelhost });
  };
  reset();
  return {
    fakes,
    hosts,
    router,
    account,
    reset,
    panelRequests: () => [fakes.openai, fakes.anthropic, fakes.gemini].flatMap((fake) => fake.requests.map((request) => request.body)),
    async recordsOf(requestId) {
      const deadline = Date.now() + 5000;
      let found: LedgerRecord[] = [];
      while (found.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        found = await router.server.runtime.usage.store.findRecords({ requestId: requestId ?? '' });
      }
      return found;
    },
    async close() {
      await router.close();
      await fakes.close();
      await Promise.all(HOSTS.map((host) => hosts[host].close()));
    },
  };
}

/** Sum of the given calls' tokens, as the router must report it. */
export function sumOf(...usages: Array<{ inputTokens: number; outputTokens: number }>): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const prompt = usages.reduce((sum, usage) => sum + usage.inputTokens, 0);
  const completion = usages.reduce((sum, usage) => sum + usage.outputTokens, 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The text of every message of a recorded chat request, joined. */
export function messagesText(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown }).messages ?? body);
}
