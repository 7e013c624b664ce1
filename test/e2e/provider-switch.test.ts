/**
 * A conversation that changes provider mid-way, through the official openai SDK and fakes that refuse
 * what the real providers refuse (Anthropic's tool_use id pattern and tool_result pairing, OpenAI's
 * 40-character call ids and call/result pairing, Gemini's missing or corrupted thought signatures): it
 * starts on Gemini 3 with parallel tool calls, goes on to Anthropic (with reasoning asked), then to
 * OpenAI, and back to Gemini, with an earlier step whose ids another gateway made (LiteLLM's
 * signature-in-id: long, with `+/=`). No upstream answers 400; foreign signed reasoning never reaches
 * another provider; Gemini gets its own real signature back and the documented placeholder for steps
 * it never made. Both kinds of chat client: one that echoes every field, one that rebuilds its messages.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessage, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { PROVIDER_KEYS, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';
import { ASK, WEATHER_TOOL, rebuiltTurn, sentModelParts, signaturesOf, toolResults } from './rebuilding-client.js';

const PARALLEL = loadRecorded('gemini/gemini-3-parallel-function-calls');
const GEMINI_SIGNATURE = signaturesOf(PARALLEL)[0]!;
const SKIP = 'skip_thought_signature_validator';
/** An id as LiteLLM writes a Gemini signature into it: illegal for Anthropic, too long for OpenAI. */
const LITELLM_ID = `call_9f2c__thought__${Buffer.from('x'.repeat(240)).toString('base64').replace(/x/g, '+').slice(0, 300)}/=`;

let fakes: Fakes;
let router: TestRouter;
let client: OpenAI;

const route = (id: string, provider: string, model: string) => ({ id, family: 'frontier', description: id, quotaWeight: 1, retryBudget: 0, tiers: [[{ provider, model }]] });

beforeAll(async () => {
  fakes = await startFakes();
  router = await startTestRouter({
    patch: {
      providers: pointProvidersAt(fakes.urls),
      routes: (doc: any) => {
        doc.routes.push(route('test/gemini3', 'gemini', 'gemini-3-pro-preview'), route('test/claude', 'anthropic', 'claude-sonnet-4-5'), route('test/gpt', 'openai', 'gpt-4.1'));
      },
      plans: (doc: any) => {
        for (const plan of doc.plans) plan.routeProfiles = [...plan.routeProfiles, 'test/gemini3', 'test/claude', 'test/gpt'];
      },
    },
  });
  client = sdkClient(router, (await router.createAccount('pro', { providerKeys: PROVIDER_KEYS })).key);
});
afterAll(async () => {
  await router?.close();
  await fakes?.close();
});
beforeEach(() => {
  fakes.gemini.reset();
  fakes.anthropic.reset();
  fakes.openai.reset();
});

/** An earlier, finished step whose ids another gateway made. */
const EARLIER: ChatCompletionMessageParam[] = [
  { role: 'user', content: 'What was the weather in Rome?' },
  { role: 'assistant', content: null, tool_calls: [{ id: LITELLM_ID, type: 'function', function: { name: 'get_weather', arguments: '{"location":"Rome"}' } }] },
  { role: 'tool', tool_call_id: LITELLM_ID, content: '{"temperature_c":24}' },
  { role: 'assistant', content: 'It was 24°C in Rome.' },
];

const CLIENTS = {
  'echoes every field': (message: ChatCompletionMessage) => message as ChatCompletionMessageParam,
  'rebuilds its messages': (message: ChatCompletionMessage) => rebuiltTurn(message),
};

const lastBody = (fake: { requests: Array<{ body: unknown }> }) => fake.requests.at(-1)!.body as Record<string, any>;

describe('a conversation moves Gemini → Anthropic → OpenAI → Gemini without an upstream 400', () => {
  it.each(Object.keys(CLIENTS) as Array<keyof typeof CLIENTS>)('a client that %s', async (kind) => {
    const keep = CLIENTS[kind];
    // Turn 1, Gemini 3: two parallel calls, the first signed.
    fakes.gemini.setReply({ recorded: PARALLEL });
    const gemini = await client.chat.completions.create({ model: 'test/gemini3', messages: [...EARLIER, ASK], tools: [WEATHER_TOOL] });
    const geminiCalls = gemini.choices[0]!.message.tool_calls!;
    const history: ChatCompletionMessageParam[] = [...EARLIER, ASK, keep(gemini.choices[0]!.message), ...toolResults(geminiCalls)];

    // Turn 2, Anthropic with reasoning asked: ids made legal, each result still after its call, no Gemini signature in the body.
    fakes.anthropic.setReply({ toolCalls: [{ name: 'get_weather', arguments: { location: 'Paris' } }, { name: 'get_weather', arguments: { location: 'London' } }] });
    const claude = await client.chat.completions.create({ model: 'test/claude', messages: history, tools: [WEATHER_TOOL], reasoning_effort: 'high' });
    const sentToClaude = JSON.stringify(lastBody(fakes.anthropic));
    expect(sentToClaude).not.toContain(GEMINI_SIGNATURE);
    expect(sentToClaude).not.toContain('thought__');
    // The Gemini step it continues carries no Anthropic signature, so this one request goes without thinking.
    expect(lastBody(fakes.anthropic).thinking).toBeUndefined();
    const claudeCalls = claude.choices[0]!.message.tool_calls!;
    history.push(keep(claude.choices[0]!.message), ...toolResults(claudeCalls));

    // Turn 3, OpenAI: every id within 40 characters, every call answered, nothing of Gemini's.
    fakes.openai.setReply({ text: 'Paris 18°C, London 14°C.' });
    const gpt = await client.chat.completions.create({ model: 'test/gpt', messages: history, tools: [WEATHER_TOOL], reasoning_effort: 'high' });
    expect(gpt.choices[0]!.message.content).toBe('Paris 18°C, London 14°C.');
    const sentToGpt = lastBody(fakes.openai);
    for (const message of sentToGpt.messages) for (const call of message.tool_calls ?? []) expect(call.id.length).toBeLessThanOrEqual(40);
    expect(JSON.stringify(sentToGpt)).not.toContain(GEMINI_SIGNATURE);
    // The client's own ids that were already legal reach the provider as they are.
    expect(sentToGpt.messages.flatMap((message: any) => (message.tool_calls ?? []).map((call: any) => call.id)).slice(1)).toEqual([...geminiCalls, ...claudeCalls].map((call) => call.id));

    // Back to Gemini from the same history: its own step gets its real signature, Anthropic's step the placeholder.
    fakes.gemini.setReply({ text: 'Paris 18°C, London 14°C.' });
    const back = await client.chat.completions.create({ model: 'test/gemini3', messages: history, tools: [WEATHER_TOOL] });
    expect(back.choices[0]!.message.content).toBe('Paris 18°C, London 14°C.');
    const contents = lastBody(fakes.gemini).contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    const steps = contents.filter((content) => content.role === 'model' && content.parts.some((part) => part.functionCall !== undefined));
    expect(steps.map((step) => step.parts.filter((part) => part.functionCall !== undefined).map((part) => part.thoughtSignature))).toEqual([
      [SKIP],
      [GEMINI_SIGNATURE, undefined],
      [SKIP, undefined],
    ]);
    expect(sentModelParts(lastBody(fakes.gemini))).toHaveLength(2);
  });
});
