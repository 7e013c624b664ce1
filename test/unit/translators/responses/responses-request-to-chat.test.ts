import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../../src/core/errors.js';
import type { ChatRequest } from '../../../../src/formats/openai-chat.js';
import type { ResponsesRequest, ResponsesToolChoice } from '../../../../src/formats/openai-responses.js';
import { responsesRequestToChat } from '../../../../src/translators/responses/responses-request-to-chat.js';

const MODEL = 'router/frontier';

function translate(fields: Partial<ResponsesRequest>): ChatRequest {
  return responsesRequestToChat({ model: MODEL, input: 'Hi', ...fields });
}

function thrown(action: () => unknown): RouterError {
  try {
    action();
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw error;
  }
  throw new Error('expected a RouterError');
}

const PATCH = '*** Begin Patch\n*** Update File: src/sum.ts\n@@\n-export const sum = (a, b) => a - b;\n+export const sum = (a, b) => a + b;\n*** End Patch';
const GRAMMAR = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?';
const INPUT_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw tool input, verbatim (not JSON-encoded).' } },
  required: ['input'],
  additionalProperties: false,
};

describe('responsesRequestToChat: a realistic Codex CLI turn', () => {
  const shellParameters = {
    type: 'object',
    properties: { command: { type: 'array', items: { type: 'string' } }, workdir: { type: 'string' } },
    required: ['command'],
    additionalProperties: false,
  };
  const codexRequest: ResponsesRequest = {
    model: MODEL,
    instructions: 'You are Codex, a coding agent running in the terminal.',
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>workspace-write</permissions>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context><cwd>/repo</cwd></environment_context>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the failing test in src/sum.ts' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Reading the file first.' }], encrypted_content: 'gAAAAB-opaque' },
      { type: 'function_call', id: 'fc_1', call_id: 'call_shell_1', name: 'shell', arguments: '{"command":["cat","src/sum.ts"]}' },
      { type: 'function_call_output', call_id: 'call_shell_1', output: 'export const sum = (a, b) => a - b;' },
      { type: 'custom_tool_call', call_id: 'call_patch_1', name: 'apply_patch', input: PATCH },
      { type: 'custom_tool_call_output', call_id: 'call_patch_1', output: 'Success. Updated the following files:\nM src/sum.ts' },
      { type: 'local_shell_call', call_id: 'call_ls_1', action: { type: 'exec', command: ['ls'] }, status: 'completed' },
      { type: 'local_shell_call_output', call_id: 'call_ls_1', output: 'src' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed the sign in sum.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks, run the tests too.' }] },
    ],
    tools: [
      { type: 'function', name: 'shell', description: 'Runs a shell command.', strict: false, parameters: shellParameters },
      { type: 'custom', name: 'apply_patch', description: 'Edit files with a patch.', format: { type: 'grammar', syntax: 'lark', definition: GRAMMAR } },
      { type: 'local_shell' },
      { type: 'web_search', external_web_access: false },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { effort: 'medium', summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '0199a213-81c0-7800-8aa1-bbab2a035a53',
  };

  it('becomes the equivalent chat request, dropping reasoning, hosted tools and their calls', () => {
    expect(responsesRequestToChat(codexRequest)).toStrictEqual({
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are Codex, a coding agent running in the terminal.' },
        { role: 'developer', content: '<permissions>workspace-write</permissions>' },
        { role: 'user', content: '<environment_context><cwd>/repo</cwd></environment_context>' },
        { role: 'user', content: 'Fix the failing test in src/sum.ts' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_shell_1', type: 'function', function: { name: 'shell', arguments: '{"command":["cat","src/sum.ts"]}' } }],
        },
        { role: 'tool', tool_call_id: 'call_shell_1', content: 'export const sum = (a, b) => a - b;' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_patch_1', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: PATCH }) } }],
        },
        { role: 'tool', tool_call_id: 'call_patch_1', content: 'Success. Updated the following files:\nM src/sum.ts' },
        { role: 'assistant', content: 'Fixed the sign in sum.' },
        { role: 'user', content: 'Thanks, run the tests too.' },
      ],
      tools: [
        { type: 'function', function: { name: 'shell', description: 'Runs a shell command.', parameters: shellParameters, strict: false } },
        {
          type: 'function',
          function: {
            name: 'apply_patch',
            description: `Edit files with a patch.\n\nThe "input" argument must match this lark grammar:\n${GRAMMAR}`,
            parameters: INPUT_PARAMETERS,
          },
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning_effort: 'medium',
      prompt_cache_key: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});

describe('responsesRequestToChat: input', () => {
  it('turns a string input into one user message, after the instructions as a system message', () => {
    expect(translate({ instructions: 'Be brief.', input: 'What is 2+2?' }).messages).toStrictEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 2+2?' },
    ]);
  });

  it('accepts easy-form messages without a type and keeps system and developer roles', () => {
    const chat = translate({
      input: [
        { role: 'system', content: 'System rule.' },
        { role: 'developer', content: 'Developer rule.' },
        { role: 'user', content: 'Question?' },
      ],
    });
    expect(chat.messages).toStrictEqual([
      { role: 'system', content: 'System rule.' },
      { role: 'developer', content: 'Developer rule.' },
      { role: 'user', content: 'Question?' },
    ]);
  });

  it('joins text-only parts into a string but keeps parts when an image is present', () => {
    const chat = translate({
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'first' }, { type: 'input_text', text: 'second' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this picture?' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
            { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'original' },
          ],
        },
      ],
    });
    expect(chat.messages).toStrictEqual([
      { role: 'user', content: 'first\nsecond' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        ],
      },
    ]);
  });

  it('maps input_file to a chat file part', () => {
    const chat = translate({ input: [{ role: 'user', content: [{ type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' }] }] });
    expect(chat.messages).toStrictEqual([
      { role: 'user', content: [{ type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } }] },
    ]);
  });

  it('rejects images referenced only by file_id, naming the part', () => {
    const error = thrown(() => translate({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-123', detail: 'auto' }] }] }));
    expect(error.code).toBe('unsupported_parameter');
    expect(error.param).toBe('input[0].content[0]');
  });

  it('merges consecutive function calls into the preceding assistant text message', () => {
    const chat = translate({
      input: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking both.' }] },
        { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'reasoning', id: 'rs_9', summary: [] },
        { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_a', output: '18C' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: '24C' }, { type: 'input_image', image_url: 'https://x/y.png' }] },
      ],
    });
    expect(chat.messages).toStrictEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '18C' },
      { role: 'tool', tool_call_id: 'call_b', content: '24C\n[input_image omitted]' },
    ]);
  });

  it('starts a new assistant message for calls that follow tool results', () => {
    const chat = translate({
      input: [
        { type: 'function_call', call_id: 'call_1', name: 'ls', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
        { type: 'function_call', call_id: 'call_2', name: 'cat', arguments: '{"path":"a.txt"}' },
      ],
    });
    expect(chat.messages.map((message) => [message.role, message.tool_calls?.map((call) => call.id)])).toStrictEqual([
      ['assistant', ['call_1']],
      ['tool', undefined],
      ['assistant', ['call_2']],
    ]);
  });

  it('rejects a tool output that is neither text nor parts, naming the field', () => {
    const error = thrown(() => translate({ input: [{ type: 'function_call_output', call_id: 'call_1', output: { ok: true } } as never] }));
    expect([error.code, error.param]).toStrictEqual(['invalid_request', 'input[0].output']);
  });

  it('rejects item references, which need server-side storage', () => {
    const error = thrown(() => translate({ input: [{ type: 'item_reference', id: 'msg_1' }] }));
    expect([error.code, error.param]).toStrictEqual(['invalid_request', 'input[0]']);
  });

  it.each([
    ['a number', 42],
    ['an object', { role: 'user', content: 'hi' }],
    ['null', null],
  ])('rejects input that is %s with param "input"', (_label, input) => {
    const error = thrown(() => translate({ input: input as unknown as ResponsesRequest['input'] }));
    expect([error.code, error.param]).toStrictEqual(['invalid_request', 'input']);
  });

  it('rejects a message with an unknown role, naming the field', () => {
    const error = thrown(() => translate({ input: [{ role: 'tool', content: 'x' } as never] }));
    expect([error.code, error.param]).toStrictEqual(['invalid_request', 'input[0].role']);
  });

  it('rejects a function call without a call_id', () => {
    const error = thrown(() => translate({ input: [{ type: 'function_call', name: 'ls', arguments: '{}' } as never] }));
    expect([error.code, error.param]).toStrictEqual(['invalid_request', 'input[0].call_id']);
  });
});

describe('responsesRequestToChat: tools', () => {
  it('drops hosted tools and keeps router tools', () => {
    const chat = translate({ tools: [{ type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'router:fusion' }] });
    expect(chat.tools).toStrictEqual([{ type: 'router:fusion' }]);
  });

  it('sends no tool_choice or parallel_tool_calls when every tool was dropped', () => {
    const chat = translate({ tools: [{ type: 'local_shell' }], tool_choice: 'required', parallel_tool_calls: true });
    expect(['tools', 'tool_choice', 'parallel_tool_calls'].filter((key) => key in chat)).toStrictEqual([]);
  });

  it('turns a custom tool with a text format into a function without grammar text', () => {
    const chat = translate({ tools: [{ type: 'custom', name: 'note', format: { type: 'text' } }] });
    expect(chat.tools).toStrictEqual([{ type: 'function', function: { name: 'note', description: '', parameters: INPUT_PARAMETERS } }]);
  });

  it.each<[string, ResponsesToolChoice, ChatRequest['tool_choice']]>([
    ['none', 'none', 'none'],
    ['auto', 'auto', 'auto'],
    ['required', 'required', 'required'],
    ['a named function', { type: 'function', name: 'get_weather' }, { type: 'function', function: { name: 'get_weather' } }],
    ['a named custom tool', { type: 'custom', name: 'apply_patch' }, { type: 'function', function: { name: 'apply_patch' } }],
    [
      'allowed tools',
      { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_weather' }, { type: 'web_search' }] },
      { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_weather' } }] } },
    ],
    ['a hosted tool (dropped)', { type: 'file_search' }, undefined],
  ])('maps tool_choice %s', (_label, toolChoice, expected) => {
    const chat = translate({ tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }], tool_choice: toolChoice });
    expect(chat.tool_choice).toStrictEqual(expected);
  });
});

describe('responsesRequestToChat: options', () => {
  it('carries generation and identity options under their chat names', () => {
    const chat = translate({
      max_output_tokens: 512,
      temperature: 0.2,
      top_p: 0.9,
      reasoning: { effort: 'high' },
      user: 'user-7',
      safety_identifier: 'hash-7',
      prompt_cache_key: 'thread-7',
      metadata: { team: 'search' },
    });
    expect(chat).toStrictEqual({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
      max_completion_tokens: 512,
      temperature: 0.2,
      top_p: 0.9,
      reasoning_effort: 'high',
      user: 'user-7',
      safety_identifier: 'hash-7',
      prompt_cache_key: 'thread-7',
      metadata: { team: 'search' },
    });
  });

  it('nests a flat json_schema text format under response_format.json_schema', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const chat = translate({ text: { format: { type: 'json_schema', name: 'codex_output_schema', schema, strict: true }, verbosity: 'low' } });
    expect(chat.response_format).toStrictEqual({ type: 'json_schema', json_schema: { name: 'codex_output_schema', schema, strict: true } });
  });

  it('leaves out a null description and a null format, which the body schema lets through', () => {
    const chat = translate({ text: { format: { type: 'json_schema', name: 'n', schema: {}, description: null, strict: null } } });
    expect(chat.response_format).toStrictEqual({ type: 'json_schema', json_schema: { name: 'n', schema: {} } });
    expect('response_format' in translate({ text: { format: null } })).toBe(false);
  });

  it('maps json_object and leaves plain text to the upstream default', () => {
    expect(translate({ text: { format: { type: 'json_object' } } }).response_format).toStrictEqual({ type: 'json_object' });
    expect('response_format' in translate({ text: { format: { type: 'text' } } })).toBe(false);
  });

  it('ignores storage and delivery options and does not stream unless asked', () => {
    const chat = translate({ store: true, include: ['reasoning.encrypted_content'], truncation: 'auto', background: false, service_tier: 'flex', stream: false });
    expect(chat).toStrictEqual({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] });
  });
});
