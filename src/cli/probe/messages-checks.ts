/**
 * With a key: Anthropic's Messages API as Claude Code and the Anthropic SDK use it, the key in
 * `x-api-key`: a Message (JSON), the event stream in Anthropic's grammar, a token count, and a wrong
 * key's 401 in Anthropic's shape with `x-should-retry: false` (so Claude Code fails at once instead of
 * retrying for two minutes). The first two send real model traffic, counted against the key's quota.
 */
import type { ProbeResponse } from './probe-response.js';
import { probeFetch } from './probe-http.js';
import { expectThat, ProbeFailure, type ProbeSession } from './probe-session.js';
import { readSseBody } from './read-sse.js';
import type { ModelProbe } from './model-checks.js';

export const MESSAGES_CHECKS = {
  message: 'Messages API (x-api-key, as Claude Code sends it)',
  stream: 'Messages stream: message_start … message_stop, each event named as its type',
  countTokens: 'Messages token count',
  wrongKey: 'Messages API: a wrong key is a 401 in Anthropic’s shape with x-should-retry: false',
} as const;
const PROMPT = 'Reply with the word pong.';
const ANTHROPIC_VERSION = { 'anthropic-version': '2023-06-01' };

/** Returns the responses of the model requests that passed, for the limit-header check. */
export async function runMessagesChecks(session: ProbeSession, probe: ModelProbe): Promise<ProbeResponse[]> {
  const post = (path: string, body: object, key = probe.key) =>
    probeFetch({ method: 'POST', url: `${probe.origin}/v1${path}`, key, keyHeader: 'x-api-key', headers: ANTHROPIC_VERSION, body });
  const ask = { model: probe.model, max_tokens: 16, messages: [{ role: 'user', content: PROMPT }] };
  const counted: ProbeResponse[] = [];

  await session.check('authenticated', MESSAGES_CHECKS.message, async () => {
    const r = await post('/messages', ask);
    expectThat(r.status === 200 && r.json?.type === 'message' && r.json.role === 'assistant' && r.json.model === probe.model, `a 200 message for ${probe.model}`, r);
    expectThat(Array.isArray(r.json.content) && typeof r.json.stop_reason === 'string', 'content blocks and a stop_reason', r);
    expectThat(typeof r.json.usage?.input_tokens === 'number' && typeof r.json.usage.output_tokens === 'number', 'usage', r);
    expectThat(r.headers.get('x-router-upstream') && r.headers.get('x-router-retry-count') !== null, 'X-Router-Upstream and X-Router-Retry-Count', r);
    counted.push(r);
    return `served by ${r.headers.get('x-router-upstream')}, ${r.json.stop_reason}`;
  });

  await session.check('authenticated', MESSAGES_CHECKS.stream, async () => {
    const r = await post('/messages', { ...ask, stream: true });
    expectThat(r.status === 200 && r.headers.get('content-type')?.startsWith('text/event-stream'), 'a 200 text/event-stream', r);
    const { events, unframed } = readSseBody(r.text);
    expectThat(!unframed, 'every line an SSE field and every event ended by a blank line', r);
    const typed = events.map((event) => ({ name: event.event, data: jsonData<{ type?: string; delta?: { stop_reason?: unknown } }>(event.data, r) }));
    expectThat(typed.length >= 4 && typed.every((event) => event.name === event.data.type), 'each event: name equal to its data type', r);
    expectThat(typed[0]!.name === 'message_start', 'message_start first', r);
    expectThat(typed.at(-1)!.name === 'message_stop', 'message_stop last', r);
    const delta = typed.find((event) => event.name === 'message_delta');
    expectThat(typeof delta?.data.delta?.stop_reason === 'string', 'a message_delta with the stop_reason', r);
    counted.push(r);
    return `${typed.length} events`;
  });

  await session.check('authenticated', MESSAGES_CHECKS.countTokens, async () => {
    const { max_tokens: _cap, ...request } = ask;
    const r = await post('/messages/count_tokens', request);
    expectThat(r.status === 200 && typeof r.json?.input_tokens === 'number', 'a 200 with input_tokens', r);
    const source = r.headers.get('x-router-token-count');
    expectThat(source === 'anthropic' || source === 'estimate', 'X-Router-Token-Count: anthropic or estimate', r);
    return `${r.json.input_tokens} tokens (${source})`;
  });

  await session.check('authenticated', MESSAGES_CHECKS.wrongKey, async () => {
    const wrong = `${probe.key.slice(0, -4)}${probe.key.endsWith('0000') ? '1111' : '0000'}`;
    const r = await post('/messages', ask, wrong);
    expectThat(r.status === 401 && r.json?.type === 'error' && r.json.error?.type === 'authentication_error', 'a 401 {"type":"error","error":{"type":"authentication_error"}}', r);
    expectThat(r.headers.get('x-should-retry') === 'false', 'x-should-retry: false', r);
    return 'authentication_error, x-should-retry: false';
  });
  return counted;
}

function jsonData<T>(data: string, r: ProbeResponse): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new ProbeFailure('JSON in every event’s data', r);
  }
}
