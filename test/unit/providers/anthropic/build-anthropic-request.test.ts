import { ANTHROPIC_TOOL_USE_ID, toolCallIdFor } from '../../../../src/providers/tool-call-ids.js';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../../src/core/errors.js';
import type { ChatMessage, ChatRequest } from '../../../../src/formats/openai-chat.js';
import { buildAnthropicRequest } from '../../../../src/providers/anthropic/build-anthropic-request.js';
import { anthropicContext } from './anthropic-test-context.js';

const hello: ChatMessage[] = [{ role: 'user', content: 'Hello' }];

function body(request: Partial<ChatRequest>, stream = false): Record<string, unknown> {
  const built = buildAnthropicRequest({ model: 'router/frontier', messages: hello, ...request }, anthropicContext({ stream }));
  return JSON.parse(built.body) as Record<string, unknown>;
}

function rejection(request: Partial<ChatRequest>): RouterError {
  try {
    body(request);
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw error;
  }
  throw new Error('expected a RouterError');
}

describe('buildAnthropicRequest: envelope', () => {
  it('posts to {baseUrl}/messages with the credential, version and content type', () => {
    const built = buildAnthropicRequest({ model: 'router/frontier', messages: hello }, anthropicContext());
    expect(built.url).toBe('https://api.anthropic.com/v1/messages');
    expect(built.headers).toEqual({
      'anthropic-version': '2023-06-01',
      'x-api-key': 'sk-ant-test-credential',
      'content-type': 'application/json',
    });
  });

  it('defaults anthropic-version, keeps extra provider headers and tolerates a trailing slash', () => {
    const ctx = anthropicContext({ provider: { baseUrl: 'http://127.0.0.1:9/v1/', headers: { 'Anthropic-Beta': 'files-api' } } });
    const built = buildAnthropicRequest({ model: 'm', messages: hello }, ctx);
    expect(built.url).toBe('http://127.0.0.1:9/v1/messages');
    expect(built.headers['anthropic-version']).toBe('2023-06-01');
    expect(built.headers['anthropic-beta']).toBe('files-api');
  });

  it('sends the upstream model and the stream flag of the context, never the route profile', () => {
    expect(body({}, true)).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 8192,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      stream: true,
    });
  });
});

describe('buildAnthropicRequest: parameters', () => {
  it('takes max_completion_tokens first, then max_tokens, then the provider default', () => {
    expect(body({ max_completion_tokens: 100, max_tokens: 50 }).max_tokens).toBe(100);
    expect(body({ max_tokens: 50 }).max_tokens).toBe(50);
    expect(body({ max_tokens: null }).max_tokens).toBe(8192);
  });

  it('clamps temperature to Anthropic’s maximum of 1 and keeps lower values', () => {
    expect(body({ temperature: 1.7 }).temperature).toBe(1);
    expect(body({ temperature: 0.3 }).temperature).toBe(0.3);
  });

  it('maps stop to stop_sequences and user identifiers to metadata.user_id', () => {
    expect(body({ stop: 'END' }).stop_sequences).toEqual(['END']);
    expect(body({ stop: ['a', 'b'] }).stop_sequences).toEqual(['a', 'b']);
    expect(body({ user: 'u-1' }).metadata).toEqual({ user_id: 'u-1' });
    expect(body({ user: 'u-1', safety_identifier: 'safe-2' }).metadata).toEqual({ user_id: 'safe-2' });
  });

  it('maps a json_schema response format to output_config.format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const built = body({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } });
    expect(built.output_config).toEqual({ format: { type: 'json_schema', schema } });
  });

  it('drops fields Anthropic has no use for instead of forwarding them', () => {
    const built = body({
      seed: 7,
      presence_penalty: 1,
      frequency_penalty: 1,
      logit_bias: { '42': 5 },
      stream_options: { include_usage: true },
      store: true,
      metadata: { a: 'b' },
      prompt_cache_key: 'k',
      reasoning_effort: 'high',
      n: 1,
      top_p: 0.9,
    });
    expect(Object.keys(built).sort()).toEqual(['max_tokens', 'messages', 'model', 'stream', 'top_p']);
  });

  it('rejects n > 1 and log probabilities with a 400 naming the field', () => {
    for (const [request, param] of [
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ top_logprobs: 3 }, 'top_logprobs'],
    ] as const) {
      const error = rejection(request);
      expect(error.code).toBe('unsupported_parameter');
      expect(error.status).toBe(400);
      expect(error.param).toBe(param);
    }
  });
});

describe('buildAnthropicRequest: messages', () => {
  it('lifts system and developer messages, wherever they are, into one system string', () => {
    const built = body({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'assistant', content: 'Salut' },
      ],
    });
    expect(built.system).toBe('Be brief.\n\nAnswer in French.');
    expect(built.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Salut' }] },
    ]);
  });

  it('groups consecutive tool results into one user message, ahead of the next user text', () => {
    const built = body({
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18C' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '24C' }] },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(built.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: '24C' },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });

  it('moves tool results ahead of user text that came before them', () => {
    const built = body({
      messages: [
        { role: 'user', content: 'Go' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'user', content: 'Hurry up' },
        { role: 'tool', tool_call_id: 'call_1', content: '' },
      ],
    });
    expect((built.messages as unknown[])[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'call_1' }, { type: 'text', text: 'Hurry up' }],
    });
  });

  it('never sends empty text blocks', () => {
    const built = body({
      messages: [
        { role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      ],
    });
    expect(built.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'done' }] },
    ]);
  });

  it('wraps tool arguments that are not a JSON object as {"_raw": …} and makes ids legal for Anthropic', () => {
    const built = body({
      messages: [
        { role: 'user', content: 'Go' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'call.a/1', type: 'function', function: { name: 'f', arguments: '{"city": "Par' } },
            { id: 'call_b', type: 'function', function: { name: 'g', arguments: '[1,2]' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call.a/1', content: 'x' },
        { role: 'tool', tool_call_id: 'call_b', content: 'y' },
      ],
    });
    const [, assistant, results] = built.messages as Array<{ content: unknown[] }>;
    // An illegal id is mapped to a hash of it (the same for its result); a legal one is sent as it is.
    const mapped = toolCallIdFor('call.a/1', ANTHROPIC_TOOL_USE_ID);
    expect(mapped).toMatch(/^toolu_[A-Za-z0-9_-]{24}$/);
    expect(assistant?.content).toEqual([
      { type: 'tool_use', id: mapped, name: 'f', input: { _raw: '{"city": "Par' } },
      { type: 'tool_use', id: 'call_b', name: 'g', input: { _raw: '[1,2]' } },
    ]);
    expect(results?.content[0]).toEqual({ type: 'tool_result', tool_use_id: mapped, content: 'x' });
  });

  it('sends data-URL images as base64 and http images as url sources', () => {
    const built = body({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect((built.messages as Array<{ content: unknown }>)[0]?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('rejects content Anthropic cannot take, naming the exact part', () => {
    const audio = rejection({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'input_audio', input_audio: { data: 'AA', format: 'wav' } }] }] });
    expect([audio.code, audio.param]).toEqual(['unsupported_parameter', 'messages[0].content[1]']);
    const ftp = rejection({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }] });
    expect([ftp.code, ftp.param]).toEqual(['invalid_request', 'messages[0].content[0].image_url.url']);
    const orphan = rejection({ messages: [{ role: 'tool', content: 'x' }] });
    expect([orphan.code, orphan.param]).toEqual(['invalid_request', 'messages[0].tool_call_id']);
    const legacy = rejection({ messages: [{ role: 'function', name: 'f', content: 'x' }] });
    expect([legacy.code, legacy.param]).toEqual(['unsupported_parameter', 'messages[0].role']);
  });
});

describe('buildAnthropicRequest: tools', () => {
  const weather = { type: 'function', function: { name: 'weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
  const bare = { type: 'function', function: { name: 'ping' } };

  it('sends function tools with input_schema and leaves router and foreign tools out', () => {
    const built = body({ tools: [weather, bare, { type: 'router:fusion' }, { type: 'web_search' }] });
    expect(built.tools).toEqual([
      { name: 'weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
      { name: 'ping', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(built.tool_choice).toBeUndefined();
  });

  it('sends neither tools nor tool_choice when no function tool is left', () => {
    const built = body({ tools: [{ type: 'router:fusion' }], tool_choice: 'required' });
    expect('tools' in built || 'tool_choice' in built).toBe(false);
  });

  it('maps every chat tool_choice form and parallel_tool_calls: false', () => {
    const cases: Array<[Partial<ChatRequest>, unknown]> = [
      [{ tool_choice: 'auto' }, { type: 'auto' }],
      [{ tool_choice: 'required' }, { type: 'any' }],
      [{ tool_choice: 'none' }, { type: 'none' }],
      [{ tool_choice: { type: 'function', function: { name: 'weather' } } }, { type: 'tool', name: 'weather' }],
      [{ parallel_tool_calls: false }, { type: 'auto', disable_parallel_tool_use: true }],
      [{ tool_choice: 'required', parallel_tool_calls: false }, { type: 'any', disable_parallel_tool_use: true }],
      [{ tool_choice: 'none', parallel_tool_calls: false }, { type: 'none' }],
    ];
    for (const [request, expected] of cases) expect(body({ tools: [weather], ...request }).tool_choice).toEqual(expected);
  });

  it('rejects tool_choice forms Anthropic has no equivalent for', () => {
    const error = rejection({ tools: [weather], tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } } });
    expect([error.code, error.param]).toEqual(['unsupported_parameter', 'tool_choice']);
  });
});
