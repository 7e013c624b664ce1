import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../../src/core/errors.js';
import type { ChatMessage, ChatRequest } from '../../../../src/formats/openai-chat.js';
import { createGeminiAdapter, SKIP_THOUGHT_SIGNATURE } from '../../../../src/providers/gemini/index.js';
import { translateContentParts } from '../../../../src/providers/gemini/translate-content-parts.js';
import { geminiContext } from './gemini-test-context.js';

function build(request: Partial<ChatRequest>, stream = false) {
  const adapter = createGeminiAdapter();
  const upstream = adapter.buildChatRequest({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], ...request }, geminiContext({ stream }));
  return { upstream, body: JSON.parse(upstream.body) as Record<string, any> };
}

function rejection(run: () => unknown): RouterError {
  try {
    run();
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw error;
  }
  throw new Error('expected a RouterError');
}

describe('Gemini request: endpoint and headers', () => {
  it('posts to generateContent with the key in x-goog-api-key', () => {
    const { upstream } = build({});
    expect(upstream.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(upstream.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'test-gemini-key' });
  });

  it('posts to streamGenerateContent with alt=sse when streaming', () => {
    const { upstream } = build({}, true);
    expect(upstream.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });
});

describe('Gemini request: messages', () => {
  it('lifts system and developer messages into systemInstruction and maps roles to user/model', () => {
    const { body } = build({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Bye' },
      ],
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: [{ text: 'Hello!' }] },
      { role: 'user', parts: [{ text: 'Bye' }] },
    ]);
    expect(body.generationConfig).toBeUndefined();
  });

  it('sends data-URL images inline and http images as fileData', () => {
    const { body } = build({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.JPG?size=large' } },
          ],
        },
      ],
    });
    expect(body.contents[0].parts).toEqual([
      { text: 'Compare' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.JPG?size=large' } },
    ]);
  });

  it('guesses no type from an extension Object.prototype happens to have (`.constructor`, `.valueOf`)', () => {
    for (const name of Object.getOwnPropertyNames(Object.prototype)) {
      const url = `https://example.com/cat.${name}`;
      // The parts as built, before JSON would quietly drop a function where the type goes.
      expect(translateContentParts([{ type: 'image_url', image_url: { url } }], 'messages[0].content')).toEqual([{ fileData: { fileUri: url } }]);
    }
  });

  it('merges consecutive user turns and drops empty assistant turns', () => {
    const { body } = build({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: null },
        { role: 'user', content: 'two' },
      ],
    });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'one' }, { text: 'two' }] }]);
  });

  it('rejects a request with only system messages', () => {
    const error = rejection(() => build({ messages: [{ role: 'system', content: 'x' }] }));
    expect([error.code, error.param, error.status]).toEqual(['invalid_request', 'messages', 400]);
  });

  it('rejects legacy function-role messages', () => {
    const error = rejection(() => build({ messages: [{ role: 'function', name: 'f', content: '1' }] }));
    expect([error.code, error.param]).toEqual(['unsupported_parameter', 'messages[0].role']);
  });
});

describe('Gemini request: tool round trip', () => {
  const history: ChatMessage[] = [
    { role: 'user', content: 'Weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: 'sunny, 21°C' },
    { role: 'tool', tool_call_id: 'call_b', content: '{"time":"14:05"}' },
  ];

  it('replays the signature sent back in reasoning_details and puts every result in one user content, names recovered by id', () => {
    const signed = history.map((message) =>
      message.role === 'assistant' ? { ...message, reasoning_details: [{ type: 'reasoning.encrypted' as const, data: 'c2lnLWE=', id: 'call_a', format: 'google-gemini-v1', index: 0 }] } : message,
    );
    const { body } = build({ messages: signed });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLWE=' },
          { functionCall: { name: 'get_time', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { content: 'sunny, 21°C' } } },
          { functionResponse: { name: 'get_time', response: { time: '14:05' } } },
        ],
      },
    ]);
  });

  it('sends the validator-skip value on the first call of a step it has no signature for', () => {
    const { body } = build({ messages: history });
    expect(body.contents[1].parts[0].thoughtSignature).toBe(SKIP_THOUGHT_SIGNATURE);
    expect(SKIP_THOUGHT_SIGNATURE).toBe('skip_thought_signature_validator');
    expect(body.contents[1].parts[1]).toEqual({ functionCall: { name: 'get_time', args: { city: 'Rome' } } });
  });

  it('wraps arguments that are not a JSON object and sends empty arguments as {}', () => {
    const { body } = build({
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'Calling.',
          tool_calls: [
            { id: 'call_x', type: 'function', function: { name: 'run', arguments: '{"broken":' } },
            { id: 'call_y', type: 'function', function: { name: 'ping', arguments: '' } },
          ],
        },
      ],
    });
    expect(body.contents[1].parts).toEqual([
      { text: 'Calling.' },
      { functionCall: { name: 'run', args: { arguments: '{"broken":' } }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
      { functionCall: { name: 'ping', args: {} } },
    ]);
  });

  it('rejects a tool message whose call id no earlier assistant message made', () => {
    const error = rejection(() => build({ messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'call_zz', content: 'r' }] }));
    expect([error.code, error.param]).toEqual(['invalid_request', 'messages[1].tool_call_id']);
  });
});

describe('Gemini request: tools and tool_choice', () => {
  const weather = { type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

  it('declares function tools with parametersJsonSchema and leaves router tools out', () => {
    const { body } = build({ tools: [weather, { type: 'router:fusion' }] });
    expect(body.tools).toEqual([
      { functionDeclarations: [{ name: 'get_weather', description: 'Weather by city', parametersJsonSchema: weather.function.parameters }] },
    ]);
    expect(body.toolConfig).toBeUndefined();
  });

  it('sends no tools when only router tools are present', () => {
    const { body } = build({ tools: [{ type: 'router:fusion' }], tool_choice: 'auto' });
    expect(body.tools).toBeUndefined();
    expect(body.toolConfig).toBeUndefined();
  });

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    ['required', { mode: 'ANY' }],
    [{ type: 'function', function: { name: 'get_weather' } }, { mode: 'ANY', allowedFunctionNames: ['get_weather'] }],
    [
      { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_weather' } }] } },
      { mode: 'VALIDATED', allowedFunctionNames: ['get_weather'] },
    ],
    [
      { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_weather' } }] } },
      { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    ],
  ] as const)('maps tool_choice %j', (choice, config) => {
    const { body } = build({ tools: [weather], tool_choice: choice as ChatRequest['tool_choice'] });
    expect(body.toolConfig).toEqual({ functionCallingConfig: config });
  });

  it('rejects a tool_choice Gemini cannot express', () => {
    const error = rejection(() => build({ tools: [weather], tool_choice: { type: 'custom', custom: { name: 'x' } } }));
    expect([error.code, error.param]).toEqual(['unsupported_parameter', 'tool_choice']);
  });
});

describe('Gemini request: generationConfig', () => {
  it('maps limits, sampling, stop, n, seed, penalties, JSON schema and reasoning effort', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    const { body } = build({
      max_completion_tokens: 500,
      max_tokens: 100,
      temperature: 0.3,
      top_p: 0.9,
      stop: 'END',
      n: 2,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
      reasoning_effort: 'medium',
    });
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 500,
      temperature: 0.3,
      topP: 0.9,
      stopSequences: ['END'],
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
      thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
    });
  });

  it('uses max_tokens when max_completion_tokens is absent and json_object as a MIME type only', () => {
    const { body } = build({ max_tokens: 64, stop: ['a', 'b'], response_format: { type: 'json_object' } });
    expect(body.generationConfig).toEqual({ maxOutputTokens: 64, stopSequences: ['a', 'b'], responseMimeType: 'application/json' });
  });

  it('turns thinking off for reasoning_effort none', () => {
    const { body } = build({ reasoning_effort: 'none' });
    expect(body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
  });

  it('rejects logprobs with a 400 naming the parameter', () => {
    const error = rejection(() => build({ logprobs: true }));
    expect([error.code, error.param, error.status]).toEqual(['unsupported_parameter', 'logprobs', 400]);
  });

  it('takes an effort the table lacks as the nearest one it has, and an unknown word as medium', () => {
    expect(build({ reasoning_effort: 'xhigh' }).body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 24576, includeThoughts: true } });
    expect(build({ reasoning_effort: 'minimal' }).body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
    expect(build({ reasoning_effort: 'extreme' }).body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 8192, includeThoughts: true } });
  });

  it('reads the OpenRouter reasoning object: max_tokens as the budget, exclude hides the thoughts', () => {
    expect(build({ reasoning: { max_tokens: 3000 } }).body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 3000, includeThoughts: true } });
    expect(build({ reasoning: { effort: 'high', exclude: true } }).body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 24576, includeThoughts: false } });
    expect(build({ reasoning: { enabled: false } }).body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
  });

  it("sends Gemini 3's thinkingLevel for a model whose catalog entry says levels", () => {
    const model = { provider: 'gemini', model: 'gemini-3-pro', maxOutputTokens: 65536, reasoning: { low: 1024, medium: 8192, high: 24576, levels: true } };
    const adapter = createGeminiAdapter();
    const upstream = adapter.buildChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' }, geminiContext({ model }));
    expect(JSON.parse(upstream.body).generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'low', includeThoughts: true } });
  });

  it('drops reasoning for a model the catalog does not mark as reasoning', () => {
    const adapter = createGeminiAdapter();
    const plain = { provider: 'gemini', model: 'gemini-2.0-flash', maxOutputTokens: 8192 };
    for (const model of [plain, undefined]) {
      const upstream = adapter.buildChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' }, { ...geminiContext(), model });
      expect(JSON.parse(upstream.body).generationConfig).toBeUndefined();
    }
  });
});
