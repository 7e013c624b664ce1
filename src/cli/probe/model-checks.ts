/**
 * With a key: what a client depends on, end to end through whatever upstream serves the route profile.
 * Chat completions (JSON and stream: framing, the usage chunk, [DONE]), Responses (JSON and the event
 * order through response.completed), a tool call round trip, and the fusion profile or its plan error.
 * Each sends real model traffic, counted against the key's quota.
 */
import type { ProbeResponse } from './probe-response.js';
import { probeFetch } from './probe-http.js';
import { expectThat, ProbeFailure, type ProbeSession } from './probe-session.js';
import { readSseBody } from './read-sse.js';

export interface ModelProbe {
  origin: string;
  key: string;
  /** The route profile to send traffic to. */
  model: string;
}

const FUSION = 'router/fusion';

/** The checks this file runs, by name (also listed as skipped when there is no key). */
export const MODEL_CHECKS = {
  models: 'GET /v1/models lists the key’s profiles with limit headers',
  chat: 'chat completion',
  chatStream: 'chat completion stream: SSE framing, usage chunk, [DONE]',
  responses: 'Responses API',
  responsesStream: 'Responses stream: event order through response.completed',
  tools: 'tool call round trip',
  fusion: `${FUSION}: served on plans that include it, the plan error otherwise`,
} as const;
const PROMPT = 'Reply with the word pong.';
const TOOL = {
  type: 'function',
  function: { name: 'get_time', description: 'The current time in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

/** Returns the responses of the model requests that passed, for the limit-header check. */
export async function runModelChecks(session: ProbeSession, probe: ModelProbe): Promise<{ models: string[]; counted: ProbeResponse[] }> {
  const post = (path: string, body: object) => probeFetch({ method: 'POST', url: `${probe.origin}/v1${path}`, key: probe.key, body });
  const counted: ProbeResponse[] = [];
  let models: string[] = [];

  await session.check('authenticated', MODEL_CHECKS.models, async () => {
    const r = await probeFetch({ url: `${probe.origin}/v1/models`, key: probe.key });
    expectThat(r.status === 200 && r.json?.object === 'list' && Array.isArray(r.json.data), 'a 200 model list', r);
    models = r.json.data.map((model: { id: string }) => model.id);
    expectThat(models.includes(probe.model), `${probe.model} in the list`, r);
    for (const header of ['x-quota-limit', 'x-quota-used', 'x-quota-remaining', 'x-quota-period', 'x-quota-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      expectThat(r.headers.get(header) !== null, `the ${header} header`, r);
    }
    return models.join(', ');
  });

  await session.check('authenticated', MODEL_CHECKS.chat, async () => {
    const r = await post('/chat/completions', { model: probe.model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 16 });
    expectChatCompletion(r, probe.model);
    counted.push(r);
    return `served by ${r.headers.get('x-router-upstream')} after ${r.headers.get('x-router-retry-count')} retries`;
  });

  await session.check('authenticated', MODEL_CHECKS.chatStream, async () => {
    const r = await post('/chat/completions', { model: probe.model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 16, stream: true, stream_options: { include_usage: true } });
    expectThat(r.status === 200 && r.headers.get('content-type')?.startsWith('text/event-stream'), 'a 200 text/event-stream', r);
    const { events, unframed } = readSseBody(r.text);
    expectThat(!unframed, 'every line an SSE field and every event ended by a blank line', r);
    expectThat(events.at(-1)?.data === '[DONE]', 'data: [DONE] as the last event', r);
    const chunks = events.slice(0, -1).map((event) => jsonData<{ object?: string; model?: string; choices?: unknown[]; usage?: unknown }>(event.data, r));
    expectThat(chunks.length > 1 && chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === probe.model), `chat.completion.chunk events for ${probe.model}`, r);
    const last = chunks.at(-1)!;
    expectThat(Array.isArray(last.choices) && last.choices.length === 0 && last.usage, 'a final usage chunk with no choices (stream_options.include_usage)', r);
    counted.push(r);
    return `${chunks.length} chunks`;
  });

  await session.check('authenticated', MODEL_CHECKS.responses, async () => {
    const r = await post('/responses', { model: probe.model, input: PROMPT, max_output_tokens: 16 });
    expectThat(r.status === 200 && r.json?.object === 'response' && r.json.status === 'completed' && r.json.model === probe.model, `a completed response for ${probe.model}`, r);
    expectThat(Array.isArray(r.json.output) && r.json.usage, 'output and usage', r);
    counted.push(r);
    return `${r.json.output.length} output items`;
  });

  await session.check('authenticated', MODEL_CHECKS.responsesStream, async () => {
    const r = await post('/responses', { model: probe.model, input: PROMPT, max_output_tokens: 16, stream: true });
    expectThat(r.status === 200 && r.headers.get('content-type')?.startsWith('text/event-stream'), 'a 200 text/event-stream', r);
    const { events, unframed } = readSseBody(r.text);
    expectThat(!unframed && events.length >= 3, 'a framed event stream', r);
    const typed = events.map((event) => ({ name: event.event, data: jsonData<{ type?: string; sequence_number?: number; response?: { status?: string } }>(event.data, r) }));
    expectThat(typed.every((event) => event.name === event.data.type), 'each event: name equal to its data type', r);
    expectThat(typed[0]!.data.type === 'response.created', 'response.created first', r);
    expectThat(typed.at(-1)!.data.type === 'response.completed' && typed.at(-1)!.data.response?.status === 'completed', 'response.completed last', r);
    const sequence = typed.map((event) => event.data.sequence_number ?? -1);
    expectThat(sequence.every((n, i) => i === 0 || n > sequence[i - 1]!), 'increasing sequence_number', r);
    counted.push(r);
    return `${typed.length} events`;
  });

  await session.check('authenticated', MODEL_CHECKS.tools, async () => {
    const messages: object[] = [{ role: 'user', content: 'What time is it in Paris? Use the tool.' }];
    const first = await post('/chat/completions', { model: probe.model, messages, tools: [TOOL], tool_choice: { type: 'function', function: { name: 'get_time' } } });
    expectThat(first.status === 200, 'a 200 chat.completion', first);
    const call = first.json?.choices?.[0]?.message?.tool_calls?.[0];
    expectThat(call?.function?.name === 'get_time' && typeof call.id === 'string', 'a get_time tool call', first);
    expectThat(isJsonObject(call.function.arguments), 'tool call arguments that are a JSON object', first);
    messages.push(first.json.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"time":"12:00"}' });
    const second = await post('/chat/completions', { model: probe.model, messages, tools: [TOOL] });
    expectChatCompletion(second, probe.model, false);
    return 'tool call, result, answer';
  });

  await session.check('authenticated', MODEL_CHECKS.fusion, async () => {
    const r = await post('/chat/completions', { model: FUSION, messages: [{ role: 'user', content: PROMPT }], max_tokens: 16 });
    if (models.includes(FUSION)) {
      expectChatCompletion(r, FUSION);
      const calls = r.json?.router?.calls;
      expectThat(Array.isArray(calls) && calls.some((call: { role?: string }) => call.role === 'panel'), 'a router object listing the fusion run’s calls (panel, judge, writer)', r);
      return 'served';
    }
    expectThat(r.status === 403 && r.json?.error?.code === 'plan_upgrade_required' && r.json.error.upgradeUrl, 'a 403 plan_upgrade_required with upgradeUrl (the plan has no fusion)', r);
    return 'plan_upgrade_required, as the plan has no fusion';
  });
  return { models, counted };
}

function expectChatCompletion(r: ProbeResponse, model: string, textOnly = true): void {
  expectThat(r.status === 200 && r.json?.object === 'chat.completion' && r.json.model === model, `a 200 chat.completion for ${model}`, r);
  const choice = r.json.choices?.[0];
  expectThat(choice?.message?.role === 'assistant' && typeof choice.finish_reason === 'string', 'an assistant message with a finish_reason', r);
  if (textOnly) expectThat(typeof choice.message.content === 'string', 'text content', r);
  expectThat(typeof r.json.usage?.prompt_tokens === 'number', 'usage', r);
  expectThat(r.headers.get('x-router-upstream') && r.headers.get('x-router-retry-count') !== null, 'X-Router-Upstream and X-Router-Retry-Count', r);
}

function jsonData<T>(data: string, r: ProbeResponse): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new ProbeFailure('JSON in every event’s data', r);
  }
}

function isJsonObject(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}
