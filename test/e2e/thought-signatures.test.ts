/**
 * Gemini thought signatures for clients that rebuild their messages (LangChain's ChatOpenAI, the AI
 * SDK's OpenAI-compatible provider, hand-written loops): the official openai SDK as the client, keeping
 * only `id`, `type` and `function` of each tool call and the content, over recorded Gemini 3 parallel
 * and streamed function calls replayed by the fake. The exact signature reaches Gemini on turn 2 because
 * the router kept it under the call's id in its store; another account presenting the same ids gets
 * the documented placeholder; Google's `extra_content` field is written and read. The same through
 * Responses (function_call items sent back without the reasoning item) and the Messages API (tool_use
 * ids, @anthropic-ai/sdk).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionAssistantMessageParam, ChatCompletionMessageFunctionToolCall, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { PROVIDER_KEYS, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';
import { ASK, WEATHER_TOOL, rebuiltTurn, sentModelParts, signaturesOf, streamRebuilt, toolResults } from './rebuilding-client.js';

const PARALLEL = loadRecorded('gemini/gemini-3-parallel-function-calls');
const STREAMED = loadRecorded('gemini/gemini-3-streamed-function-calls');
const PARALLEL_SIGNATURE = signaturesOf(PARALLEL)[0]!;
const STREAMED_SIGNATURE = signaturesOf(STREAMED)[0]!;
const SKIP = 'skip_thought_signature_validator';

let fakes: Fakes;
let router: TestRouter;
let client: OpenAI;
let clientKey: string;
let otherClient: OpenAI;

beforeAll(async () => {
  fakes = await startFakes();
  router = await startTestRouter({
    patch: {
      providers: pointProvidersAt(fakes.urls),
      routes: (doc: any) => {
        doc.routes.push({ id: 'test/gemini3', family: 'frontier', description: 'test/gemini3', quotaWeight: 1, retryBudget: 1, tiers: [[{ provider: 'gemini', model: 'gemini-3-pro-preview' }]] });
      },
      plans: (doc: any) => {
        for (const plan of doc.plans) plan.routeProfiles = [...plan.routeProfiles, 'test/gemini3'];
      },
    },
  });
  clientKey = (await router.createAccount('pro', { providerKeys: PROVIDER_KEYS })).key;
  client = sdkClient(router, clientKey);
  otherClient = sdkClient(router, (await router.createAccount('pro', { providerKeys: PROVIDER_KEYS })).key);
});
afterAll(async () => {
  await router?.close();
  await fakes?.close();
});
beforeEach(() => fakes.gemini.reset());

const model = 'test/gemini3';

describe('a client that rebuilds its messages keeps Gemini 3 signatures', () => {
  it('parallel function calls (JSON): the exact signature reaches Gemini on turn 2, on the first call only', async () => {
    fakes.gemini.setReply({ recorded: PARALLEL });
    const first = await client.chat.completions.create({ model, messages: [ASK], tools: [WEATHER_TOOL] });
    const calls = first.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(2);
    // What the router hands the client: short ids within every provider's rules, and Google's own field.
    for (const call of calls) expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect((calls[0] as any).extra_content).toEqual({ google: { thought_signature: PARALLEL_SIGNATURE } });

    const history: ChatCompletionMessageParam[] = [ASK, rebuiltTurn(first.choices[0]!.message), ...toolResults(calls)];
    await client.chat.completions.create({ model, messages: history, tools: [WEATHER_TOOL] });
    const parts = sentModelParts(fakes.gemini.requests.at(-1)!.body);
    expect(parts.map((part) => part.thoughtSignature)).toEqual([PARALLEL_SIGNATURE, undefined]);
  });

  it('streamed function calls: the signature kept while streaming reaches Gemini on turn 2', async () => {
    fakes.gemini.setReply({ recorded: STREAMED });
    const { message, calls } = await streamRebuilt(client, { model, messages: [ASK], tools: [WEATHER_TOOL] });
    expect(calls.map((call) => call.function.name)).toEqual(['get_weather', 'get_weather']);
    await client.chat.completions.create({ model, messages: [ASK, message, ...toolResults(calls)], tools: [WEATHER_TOOL], stream: false });
    expect(sentModelParts(fakes.gemini.requests.at(-1)!.body).map((part) => part.thoughtSignature)).toEqual([STREAMED_SIGNATURE, undefined]);
  });

  it('Responses: a client that sends back the function_call items without the reasoning item still gets the exact signature upstream', async () => {
    fakes.gemini.setReply({ recorded: PARALLEL });
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } }, strict: false }];
    const first = await client.responses.create({ model, input: 'What is the weather in Paris and in London?', tools });
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls).toHaveLength(2);
    expect(first.output.some((item) => item.type === 'reasoning')).toBe(true);
    await client.responses.create({
      model,
      tools,
      input: [
        { role: 'user', content: 'What is the weather in Paris and in London?' },
        ...calls.map((call) => ({ type: 'function_call' as const, call_id: call.call_id, name: call.name, arguments: call.arguments })),
        ...calls.map((call) => ({ type: 'function_call_output' as const, call_id: call.call_id, output: '{"temperature_c":18}' })),
      ],
    });
    expect(sentModelParts(fakes.gemini.requests.at(-1)!.body).map((part) => part.thoughtSignature)).toEqual([PARALLEL_SIGNATURE, undefined]);
  });

  it('Messages API: the tool_use ids an Anthropic client sends back bring the exact signature to Gemini', async () => {
    fakes.gemini.setReply({ recorded: PARALLEL });
    const anthropic = new Anthropic({ apiKey: clientKey, baseURL: router.url, maxRetries: 0 });
    const tools = [{ name: 'get_weather', description: 'Weather at a place', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } } } }];
    const ask = { role: 'user' as const, content: 'What is the weather in Paris and in London?' };
    const first = await anthropic.messages.create({ model, max_tokens: 1024, messages: [ask], tools });
    const uses = first.content.filter((block) => block.type === 'tool_use');
    expect(uses).toHaveLength(2);
    await anthropic.messages.create({
      model,
      max_tokens: 1024,
      tools,
      messages: [
        ask,
        { role: 'assistant', content: uses.map((use) => ({ type: 'tool_use' as const, id: use.id, name: use.name, input: use.input })) },
        { role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: '18°C' })) },
      ],
    });
    expect(sentModelParts(fakes.gemini.requests.at(-1)!.body).map((part) => part.thoughtSignature)).toEqual([PARALLEL_SIGNATURE, undefined]);
  });

  it('another account presenting the same call ids gets no signature: Gemini gets the documented placeholder', async () => {
    fakes.gemini.setReply({ recorded: PARALLEL });
    const first = await client.chat.completions.create({ model, messages: [ASK], tools: [WEATHER_TOOL] });
    const history: ChatCompletionMessageParam[] = [ASK, rebuiltTurn(first.choices[0]!.message), ...toolResults(first.choices[0]!.message.tool_calls!)];
    await otherClient.chat.completions.create({ model, messages: history, tools: [WEATHER_TOOL] });
    expect(sentModelParts(fakes.gemini.requests.at(-1)!.body).map((part) => part.thoughtSignature)).toEqual([SKIP, undefined]);
  });

  it('history the router never issued (foreign ids) gets the placeholder, and a signature in extra_content is sent as it came', async () => {
    fakes.gemini.setReply({ recorded: PARALLEL });
    const foreignCall: ChatCompletionMessageFunctionToolCall = { id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Rome"}' } };
    const foreign: ChatCompletionAssistantMessageParam = {
      role: 'assistant',
      content: null,
      tool_calls: [foreignCall],
    };
    await client.chat.completions.create({ model, messages: [ASK, foreign, ...toolResults([foreignCall])], tools: [WEATHER_TOOL] });
    expect(sentModelParts(fakes.gemini.requests.at(-1)!.body)[0]!.thoughtSignature).toBe(SKIP);

    // A client written for Google's OpenAI-compatible endpoint sends the signature on the call itself.
    const google = { ...foreign, tool_calls: [{ ...foreignCall, extra_content: { google: { thought_signature: PARALLEL_SIGNATURE } } }] };
    await client.chat.completions.create({ model, messages: [ASK, google, ...toolResults([foreignCall])], tools: [WEATHER_TOOL] });
    expect(sentModelParts(fakes.gemini.requests.at(-1)!.body)[0]!.thoughtSignature).toBe(PARALLEL_SIGNATURE);
  });
});
