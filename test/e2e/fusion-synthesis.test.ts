/**
 * router/fusion as judged synthesis, through the official openai SDK and raw HTTP: the writer's request
 * holds every surviving panel answer and the judge's analysis, nothing of the panel or judge reaches the
 * client, usage is the exact sum of every call, each call is its own ledger record, and the panel runs
 * in parallel. Chat Completions and Responses, JSON and streams.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANALYSIS, PANEL_TEXT, USAGE, WRITER_TEXT, messagesText, startFusionRig, sumOf, type FusionRig } from './fusion-harness.js';
import { postV1, readSse, sdkClient } from './router-harness.js';

const QUESTION = [{ role: 'user' as const, content: 'What is the capital of France?' }];
const ALL_CALLS = [USAGE.openai, USAGE.anthropic, USAGE.gemini, USAGE.judge1, USAGE.writer1];

describe('router/fusion: judged multi-model synthesis', () => {
  let rig: FusionRig;
  let client: OpenAI;

  beforeAll(async () => {
    rig = await startFusionRig({ keepAliveMs: 100 });
    client = sdkClient(rig.router, rig.account.key);
  });
  afterEach(() => rig.reset());
  afterAll(async () => rig?.close());

  it('writes one answer from every panel answer and the analysis, with summed usage and the router object', async () => {
    const { data, response } = await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION }).withResponse();
    expect(data.model).toBe('router/fusion');
    expect(data.choices[0]?.message.content).toBe(WRITER_TEXT.writer1);
    expect(data.usage).toMatchObject(sumOf(...ALL_CALLS));
    expect(response.headers.get('x-router-upstream')).toBe('writer1');
    expect(response.headers.get('x-router-retry-count')).toBe('0');

    const writerSaw = messagesText(rig.hosts.writer1.requests[0]?.body);
    for (const text of Object.values(PANEL_TEXT)) expect(writerSaw).toContain(text);
    expect(writerSaw).toContain(ANALYSIS.consensus[0]);
    expect(writerSaw).toContain('Never mention');
    // The judge saw every answer; nobody but the writer saw the analysis.
    const judgeSaw = messagesText(rig.hosts.judge1.requests[0]?.body);
    for (const text of Object.values(PANEL_TEXT)) expect(judgeSaw).toContain(text);
    expect(JSON.stringify(rig.panelRequests())).not.toContain('ANALYSIS-MARK');

    const router = (data as unknown as { router: { fusion: { analysis: string }; calls: Array<Record<string, unknown>> } }).router;
    expect(router.fusion.analysis).toBe('used');
    const calls = router.calls.map((call) => [call.call, call.provider, call.status, call.used]);
    expect(calls.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['judge', 'judge1', 'ok', true],
      ['panel:1', 'openai', 'ok', true],
      ['panel:2', 'anthropic', 'ok', true],
      ['panel:3', 'gemini', 'ok', true],
      ['writer', 'writer1', 'ok', true],
    ]);
    const judge = router.calls.find((call) => call.call === 'judge')!;
    expect(judge).toMatchObject({ model: 'judge-a', usage: { prompt_tokens: 14, completion_tokens: 24 }, cost_usd: (14 * 1 + 24 * 2) / 1e6 });
    expect(typeof judge.latency_ms).toBe('number');
  });

  it('records each upstream call as its own ledger record under the request id', async () => {
    const response = await postV1(rig.router, rig.account.key, '/chat/completions', { model: 'router/fusion', messages: QUESTION });
    expect(response.status).toBe(200);
    const records = await rig.recordsOf(response.headers.get('x-request-id'));
    const byCall = Object.fromEntries(records.map((record) => [record.call, record]));
    expect(Object.keys(byCall).sort()).toEqual(['judge', 'main', 'panel:1', 'panel:2', 'panel:3']);
    expect(byCall.main).toMatchObject({ providerId: 'writer1', usage: { prompt: 16, completion: 26 } });
    expect(byCall['panel:2']).toMatchObject({ providerId: 'anthropic', usage: { prompt: 12, completion: 22 }, status: 200 });
    const sum = records.reduce((total, record) => total + (record.usage?.prompt ?? 0), 0);
    expect(sum).toBe(sumOf(...ALL_CALLS).prompt_tokens);
    // The answer's cost is every call's, exactly as the ledger records them, split by token type.
    const { usage } = (await response.json()) as { usage: { cost: number; cost_details: Record<string, number> } };
    const recorded = records.reduce((total, record) => total + record.costNanoUsd!, 0);
    expect(recorded).toBeGreaterThan(0);
    expect(usage.cost).toBe(recorded / 1e9);
    const { cache_savings: _savings, ...parts } = usage.cost_details;
    expect(Math.round(Object.values(parts).reduce((total, part) => total + part, 0) * 1e9)).toBe(recorded);
  });

  it('asks the panel in parallel: members of 200, 300 and 400 ms finish well before their sum', async () => {
    rig.fakes.openai.setReply({ text: PANEL_TEXT.openai, usage: USAGE.openai, latencyMs: 200 });
    rig.fakes.anthropic.setReply({ text: PANEL_TEXT.anthropic, usage: USAGE.anthropic, latencyMs: 300 });
    rig.fakes.gemini.setReply({ text: PANEL_TEXT.gemini, usage: USAGE.gemini, latencyMs: 400 });
    const started = performance.now();
    const reply = await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION });
    const elapsed = performance.now() - started;
    expect(reply.choices[0]?.message.content).toBe(WRITER_TEXT.writer1);
    expect(elapsed).toBeGreaterThanOrEqual(400);
    // Sequential would be 900 ms; the judge and writer fakes answer at once.
    expect(elapsed).toBeLessThan(850);
  });

  it('streams only the writer’s answer, then summed usage and the router object, then [DONE]', async () => {
    const stream = await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION, stream: true, stream_options: { include_usage: true } });
    let text = '';
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe(WRITER_TEXT.writer1);
    const last = chunks.at(-1) as unknown as { choices: unknown[]; usage: unknown; router: { calls: unknown[] }; model: string };
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject(sumOf(...ALL_CALLS));
    // The stream's usage carries the whole request's cost too: its calls' costs, as in the router object.
    const calls = last.router.calls as Array<{ cost_usd: number }>;
    expect((last.usage as { cost: number }).cost).toBeCloseTo(calls.reduce((total, call) => total + call.cost_usd, 0), 9);
    expect(last.router.calls).toHaveLength(5);
    expect(chunks.every((chunk) => chunk.model === 'router/fusion')).toBe(true);

    const raw = await postV1(rig.router, rig.account.key, '/chat/completions', { model: 'router/fusion', messages: QUESTION, stream: true });
    expect(raw.headers.get('x-router-upstream')).toBe('writer1');
    const events = await readSse(raw);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const body = events.map((event) => event.data).join('\n');
    expect(body).not.toContain('PANEL-');
    expect(body).not.toContain('ANALYSIS-MARK');
    // Without include_usage the router object still comes, on a last chunk without usage.
    const final = JSON.parse(events.at(-2)!.data);
    expect(final).toMatchObject({ choices: [] });
    expect(final.usage).toBeUndefined();
    expect(final.router.calls).toHaveLength(5);
  });

  it('sends keep-alive comments while a slow panel works, and the stream still parses', async () => {
    rig.fakes.gemini.setReply({ text: PANEL_TEXT.gemini, usage: USAGE.gemini, latencyMs: 450 });
    const raw = await postV1(rig.router, rig.account.key, '/chat/completions', { model: 'router/fusion', messages: QUESTION, stream: true });
    expect(raw.status).toBe(200);
    const text = await raw.text();
    const firstData = text.indexOf('data: ');
    expect(text.slice(0, firstData)).toContain(': keep-alive');
    expect(text).toContain('"content":" Paris."');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);

    rig.fakes.gemini.setReply({ text: PANEL_TEXT.gemini, usage: USAGE.gemini, latencyMs: 450 });
    let streamed = '';
    for await (const chunk of await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe(WRITER_TEXT.writer1);
  });

  it('reports a failure in-band once a keep-alive has opened the stream (chat: error event then [DONE]; Responses: error event)', async () => {
    for (const [fake, text] of [[rig.fakes.openai, PANEL_TEXT.openai], [rig.fakes.anthropic, PANEL_TEXT.anthropic], [rig.fakes.gemini, PANEL_TEXT.gemini]] as const) {
      fake.setReply({ text, latencyMs: 250 });
      fake.failAlways({ kind: 'status', status: 503 });
    }
    const chat = await postV1(rig.router, rig.account.key, '/chat/completions', { model: 'router/fusion', messages: QUESTION, stream: true });
    expect(chat.status).toBe(200);
    const events = await readSse(chat);
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(JSON.parse(events.at(-2)!.data).error).toMatchObject({ code: 'all_upstreams_failed', type: 'upstream_error' });

    const responses = await postV1(rig.router, rig.account.key, '/responses', { model: 'router/fusion', input: 'hi', stream: true });
    expect(responses.status).toBe(200);
    const last = (await readSse(responses)).at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ type: 'error', code: 'all_upstreams_failed' });
  });

  it('serves the Responses API: one Response with summed usage and the router object', async () => {
    const response = await client.responses.create({ model: 'router/fusion', input: 'What is the capital of France?' });
    expect(response.model).toBe('router/fusion');
    expect(response.output_text).toBe(WRITER_TEXT.writer1);
    expect(response.usage).toMatchObject({ input_tokens: sumOf(...ALL_CALLS).prompt_tokens, output_tokens: sumOf(...ALL_CALLS).completion_tokens });
    expect((response as unknown as { router: { calls: unknown[] } }).router.calls).toHaveLength(5);
  });

  it('streams the Responses API through response.completed, which carries the sums and the router object', async () => {
    const stream = await client.responses.create({ model: 'router/fusion', input: 'What is the capital of France?', stream: true });
    const types: string[] = [];
    let text = '';
    let completed: any;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(text).toBe(WRITER_TEXT.writer1);
    expect(completed.model).toBe('router/fusion');
    expect(completed.usage).toMatchObject({ input_tokens: sumOf(...ALL_CALLS).prompt_tokens, output_tokens: sumOf(...ALL_CALLS).completion_tokens });
    expect(completed.router.calls).toHaveLength(5);
  });

  it('lets the writer, and only the writer, call the client’s function tools', async () => {
    const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
    rig.hosts.writer1.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: USAGE.writer1 });
    const reply = await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION, tools: [weather] });
    expect(reply.choices[0]?.finish_reason).toBe('tool_calls');
    expect(reply.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    expect((rig.hosts.writer1.requests[0]?.body as { tools?: unknown[] }).tools).toHaveLength(1);
    for (const body of [...rig.panelRequests(), rig.hosts.judge1.requests[0]?.body]) expect((body as { tools?: unknown }).tools).toBeUndefined();
  });
});

describe('router/fusion with mode judge-writes', () => {
  let rig: FusionRig;

  beforeAll(async () => {
    rig = await startFusionRig({ mode: 'judge-writes' });
  });
  afterAll(async () => rig?.close());

  it('has the judge’s tiers write the answer from the panel’s answers, with no separate analysis call', async () => {
    rig.hosts.judge1.setReply({ text: 'JUDGE-WROTE: Paris.', usage: USAGE.judge1 });
    const { data, response } = await sdkClient(rig.router, rig.account.key).chat.completions.create({ model: 'router/fusion', messages: QUESTION }).withResponse();
    expect(data.choices[0]?.message.content).toBe('JUDGE-WROTE: Paris.');
    expect(response.headers.get('x-router-upstream')).toBe('judge1');
    expect(rig.hosts.judge1.requests).toHaveLength(1);
    expect(rig.hosts.writer1.requests).toHaveLength(0);
    for (const text of Object.values(PANEL_TEXT)) expect(messagesText(rig.hosts.judge1.requests[0]?.body)).toContain(text);
    const router = (data as unknown as { router: { fusion: { analysis: string }; calls: Array<{ call: string; provider: string }> } }).router;
    expect(router.fusion.analysis).toBe('not_requested');
    expect(router.calls.map((call) => `${call.call}@${call.provider}`).sort()).toEqual(['panel:1@openai', 'panel:2@anthropic', 'panel:3@gemini', 'writer@judge1']);
    expect(data.usage).toMatchObject(sumOf(USAGE.openai, USAGE.anthropic, USAGE.gemini, USAGE.judge1));
  });
});
