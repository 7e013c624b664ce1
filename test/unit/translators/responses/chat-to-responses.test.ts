import { describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatFinishReason } from '../../../../src/formats/openai-chat.js';
import { chatCompletionToResponse } from '../../../../src/translators/responses/chat-to-responses.js';
import { CREATED_AT, NOW_MS, testContext, USAGE } from './responses-fixtures.js';

function completion(message: Partial<ChatCompletion['choices'][number]['message']>, finishReason: ChatFinishReason = 'stop'): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: CREATED_AT,
    model: 'upstream-model',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
    usage: USAGE,
  };
}

describe('chatCompletionToResponse', () => {
  it('answers text as one completed message item with the usage mapped', () => {
    const response = chatCompletionToResponse(completion({ content: 'Hello there.' }), testContext({ instructions: 'Be kind.' }));
    expect(response).toStrictEqual({
      id: 'resp_test',
      object: 'response',
      created_at: CREATED_AT,
      completed_at: Math.floor(NOW_MS / 1000),
      status: 'completed',
      model: 'router/frontier',
      output: [
        { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello there.', annotations: [], logprobs: [] }] },
      ],
      output_text: 'Hello there.',
      error: null,
      incomplete_details: null,
      instructions: 'Be kind.',
      tools: [],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      temperature: null,
      top_p: null,
      max_output_tokens: null,
      previous_response_id: null,
      reasoning: null,
      store: false,
      background: false,
      text: { format: { type: 'text' } },
      truncation: 'disabled',
      metadata: {},
      safety_identifier: null,
      prompt_cache_key: null,
      usage: {
        input_tokens: 120,
        input_tokens_details: { cached_tokens: 100, cache_write_tokens: 0 },
        output_tokens: 30,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 150,
      },
    });
  });

  it('returns one function_call item per tool call, after the text, with no message when content is empty', () => {
    const toolCalls = [
      { id: 'call_a', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_b', type: 'function' as const, function: { name: 'get_time', arguments: '{}' } },
    ];
    const withText = chatCompletionToResponse(completion({ content: 'Checking.', tool_calls: toolCalls }, 'tool_calls'), testContext());
    expect(withText.output.map((item) => [item.type, item.id])).toStrictEqual([
      ['message', 'msg_1'],
      ['function_call', 'fc_1'],
      ['function_call', 'fc_2'],
    ]);
    const withoutText = chatCompletionToResponse(completion({ content: '', tool_calls: toolCalls }, 'tool_calls'), testContext());
    expect(withoutText.output).toStrictEqual([
      { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
      { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'get_time', arguments: '{}', status: 'completed' },
    ]);
    expect(withoutText.status).toBe('completed');
    expect(withoutText.output_text).toBe('');
  });

  it('unwraps calls to custom tools into custom_tool_call items with the raw input', () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch';
    const ctx = testContext({ tools: [{ type: 'custom', name: 'apply_patch' }] });
    const response = chatCompletionToResponse(
      completion({ tool_calls: [{ id: 'call_p', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: patch }) } }] }, 'tool_calls'),
      ctx,
    );
    expect(response.output).toStrictEqual([{ type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_p', name: 'apply_patch', input: patch }]);
  });

  it('passes a custom tool input through verbatim when the model skipped the JSON wrapper', () => {
    const ctx = testContext({ tools: [{ type: 'custom', name: 'apply_patch' }] });
    const response = chatCompletionToResponse(
      completion({ tool_calls: [{ id: 'call_p', type: 'function', function: { name: 'apply_patch', arguments: '*** Begin Patch' } }] }, 'tool_calls'),
      ctx,
    );
    expect(response.output).toStrictEqual([{ type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch' }]);
  });

  it('puts reasoning_content first as a reasoning item with a summary', () => {
    const response = chatCompletionToResponse(completion({ reasoning_content: 'The user greets me.', content: 'Hi!' }), testContext());
    expect(response.output[0]).toStrictEqual({ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'The user greets me.' }], status: 'completed' });
    expect(response.output[1]?.type).toBe('message');
  });

  it('keeps a refusal as a refusal content part', () => {
    const response = chatCompletionToResponse(completion({ refusal: 'I cannot help with that.' }), testContext());
    expect(response.output).toStrictEqual([
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] },
    ]);
  });

  it.each([
    ['length', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
  ] as const)('reports finish_reason %s as incomplete (%s) with incomplete items', (finishReason, reason) => {
    const response = chatCompletionToResponse(completion({ content: 'Partial' }, finishReason), testContext());
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason }, completed_at: null, output: [{ type: 'message', status: 'incomplete' }] });
  });

  it('echoes the request settings, normalizing function tools the way the schema requires', () => {
    const ctx = testContext({
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.3,
      top_p: 0.8,
      max_output_tokens: 64,
      reasoning: { effort: 'low' },
      text: { verbosity: 'low' },
      truncation: 'auto',
      metadata: { run: '7' },
      user: 'u-1',
      store: true,
    });
    const response = chatCompletionToResponse(completion({ content: 'ok' }), ctx);
    expect(response).toMatchObject({
      tools: [{ type: 'function', name: 'get_weather', description: null, parameters: { type: 'object' }, strict: null }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.3,
      top_p: 0.8,
      max_output_tokens: 64,
      reasoning: { effort: 'low' },
      text: { verbosity: 'low', format: { type: 'text' } },
      truncation: 'auto',
      metadata: { run: '7' },
      user: 'u-1',
      store: false,
    });
  });

  it('leaves usage out when the upstream reported none', () => {
    const { usage: _usage, ...withoutUsage } = completion({ content: 'ok' });
    expect('usage' in chatCompletionToResponse(withoutUsage, testContext())).toBe(false);
  });
});
