/**
 * /v1/messages with an Anthropic upstream: the body passed through as Claude Code sends it (only the
 * model and the credential rewritten, betas on the allow list), the stream relayed event by event, and
 * Anthropic's own refusals passed on word for word.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, json, pointProvidersAt, readSse, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

/** What Claude Code's requests look like (issue 22), trimmed. */
const CLAUDE_CODE_BODY = {
  model: 'claude-opus-5-5',
  max_tokens: 32000,
  stream: true,
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
  thinking: { type: 'adaptive', display: 'omitted' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  output_config: { effort: 'high' },
  metadata: { user_id: 'user_abc_account__session_123' },
  tools: [{ name: 'Read', description: 'Read a file', input_schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { limit: { type: 'number', exclusiveMinimum: 0 } } } }],
};

describe('the Messages API with an Anthropic upstream (native pass-through)', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  const post = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${router.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'claude-cli/2.1.332 (external, sdk-cli)', 'anthropic-version': '2023-06-01', 'x-api-key': key, ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['anthropic', 'openai']) } });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('passes the body through with only the model and the credential rewritten, and allowed betas only', async () => {
    const response = await post(CLAUDE_CODE_BODY, { 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14, some-unknown-beta-2030-01-01' });
    expect(response.status).toBe(200);
    await response.text();
    const sent = fakes.anthropic.requests[0]!;
    expect(sent.body).toEqual({ ...CLAUDE_CODE_BODY, model: 'claude-sonnet-4-5' });
    expect(sent.headers['x-api-key']).toBe(PROVIDER_KEYS.anthropic);
    expect(sent.headers['anthropic-beta']).toBe('claude-code-20250219,interleaved-thinking-2025-05-14');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
  });

  it('relays the stream event by event, ping included, with the client’s model name in message_start', async () => {
    const response = await post(CLAUDE_CODE_BODY);
    const events = await readSse(response);
    expect(events[0]!.event).toBe('message_start');
    expect(JSON.parse(events[0]!.data).message.model).toBe('claude-opus-5-5');
    expect(events.map((event) => event.event)).toContain('ping');
    expect(events.at(-1)!.event).toBe('message_stop');
    for (const event of events) expect(JSON.parse(event.data).type).toBe(event.event);
  });

  it('returns the non-stream message with the client’s model name and Anthropic’s own usage', async () => {
    const response = await post({ ...CLAUDE_CODE_BODY, stream: false });
    const message = await json(response);
    expect(message).toMatchObject({ type: 'message', model: 'claude-opus-5-5', usage: { input_tokens: 12, output_tokens: 9 } });
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
  });

  it('passes an Anthropic 400 on word for word, in Anthropic’s shape', async () => {
    const response = await post({ ...CLAUDE_CODE_BODY, messages: [{ role: 'system', content: 'x' }, ...CLAUDE_CODE_BODY.messages] });
    expect(response.status).toBe(400);
    const body = await json(response);
    // Word for word: Claude Code drops its system message and retries only on Anthropic's own wording.
    expect(body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.' },
    });
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('ends the relayed stream with an error event when Anthropic fails mid-stream', async () => {
    fakes.anthropic.failNext({ kind: 'mid-stream-error', afterEvents: 4 });
    const events = await readSse(await post(CLAUDE_CODE_BODY));
    expect(events.at(-1)!.event).toBe('error');
    expect(events.map((event) => event.event)).not.toContain('message_stop');
  });

  it('fails over to the next upstream when Anthropic is overloaded before the first byte', async () => {
    fakes.anthropic.failNext({ kind: 'status', status: 529 });
    const response = await post(CLAUDE_CODE_BODY);
    expect(response.headers.get('x-router-upstream')).toBe('openai');
    const events = await readSse(response);
    expect(events.at(-1)!.event).toBe('message_stop');
    // The translated path strips what Gemini and strict hosts reject from tool schemas.
    const tool = (fakes.openai.requests[0]!.body as any).tools[0].function.parameters;
    expect(tool).toEqual({ type: 'object', properties: { limit: { type: 'number', minimum: 0 } } });
  });
});
