import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../../../src/formats/openai-chat.js';
import type { ResponsesRequest, ResponsesStreamEvent } from '../../../../src/formats/openai-responses.js';
import { createResponsesStreamSynthesizer } from '../../../../src/translators/responses/responses-stream-synthesizer.js';
import { chunk, eventsOfType, NOW_MS, terminalResponse, testContext, toolCallChunk, USAGE, usageChunk } from './responses-fixtures.js';

function synthesize(chunks: ChatCompletionChunk[], request: Partial<ResponsesRequest> = {}): ResponsesStreamEvent[] {
  const synthesizer = createResponsesStreamSynthesizer(testContext(request));
  return [...synthesizer.start(), ...chunks.flatMap((each) => synthesizer.onChunk(each)), ...synthesizer.finish()];
}

const TEXT_CHUNKS = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usageChunk(USAGE)];

describe('responses stream synthesizer: text', () => {
  const events = synthesize(TEXT_CHUNKS);

  it('emits the canonical text turn in order with sequence numbers 0..n', () => {
    expect(events.map((event) => event.type)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toStrictEqual(events.map((_event, index) => index));
  });

  it('starts from an in-progress skeleton without output or usage', () => {
    const created = eventsOfType(events, 'response.created')[0]?.response;
    expect(created).toMatchObject({ id: 'resp_test', object: 'response', status: 'in_progress', output: [], completed_at: null });
    expect(created && 'usage' in created).toBe(false);
  });

  it('assembles the text from the deltas and reports it in every closing event', () => {
    const deltas = eventsOfType(events, 'response.output_text.delta').map((event) => event.delta);
    expect(deltas).toStrictEqual(['Hel', 'lo']);
    expect(eventsOfType(events, 'response.output_text.done')[0]).toMatchObject({ item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hello' });
    expect(terminalResponse(events).output_text).toBe(deltas.join(''));
  });

  it('completes with the items of output_item.done, the usage and the completion time', () => {
    const response = terminalResponse(events);
    expect(response.output).toStrictEqual(eventsOfType(events, 'response.output_item.done').map((event) => event.item));
    expect(response.output).toStrictEqual([
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }] },
    ]);
    expect([response.status, response.completed_at, response.usage?.input_tokens, response.usage?.output_tokens_details]).toStrictEqual([
      'completed',
      Math.floor(NOW_MS / 1000),
      120,
      { reasoning_tokens: 12 },
    ]);
  });

  it('leaves usage out of the terminal response when no usage chunk arrived', () => {
    expect('usage' in terminalResponse(synthesize(TEXT_CHUNKS.slice(0, -1)))).toBe(false);
  });
});

describe('responses stream synthesizer: tool calls', () => {
  const interleaved = [
    chunk({ role: 'assistant', content: 'Checking both.' }),
    toolCallChunk({ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }),
    toolCallChunk({ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }),
    toolCallChunk({ index: 0, function: { arguments: '{"city":' } }),
    toolCallChunk({ index: 1, function: { arguments: '{"tz":"UTC"}' } }),
    toolCallChunk({ index: 0, function: { arguments: '"Paris"}' } }),
    chunk({}, 'tool_calls'),
  ];
  const events = synthesize(interleaved);

  it('gives text and each call their own output_index and closes them in that order', () => {
    expect(events.map((event) => [event.type, 'output_index' in event ? event.output_index : null])).toStrictEqual([
      ['response.created', null],
      ['response.in_progress', null],
      ['response.output_item.added', 0],
      ['response.content_part.added', 0],
      ['response.output_text.delta', 0],
      ['response.output_item.added', 1],
      ['response.output_item.added', 2],
      ['response.function_call_arguments.delta', 1],
      ['response.function_call_arguments.delta', 2],
      ['response.function_call_arguments.delta', 1],
      ['response.output_text.done', 0],
      ['response.content_part.done', 0],
      ['response.output_item.done', 0],
      ['response.function_call_arguments.done', 1],
      ['response.output_item.done', 1],
      ['response.function_call_arguments.done', 2],
      ['response.output_item.done', 2],
      ['response.completed', null],
    ]);
  });

  it('opens calls with empty arguments and finishes them with the concatenated fragments and the name', () => {
    expect(eventsOfType(events, 'response.output_item.added')[1]?.item).toStrictEqual({
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_a',
      name: 'get_weather',
      arguments: '',
      status: 'in_progress',
    });
    expect(eventsOfType(events, 'response.function_call_arguments.done').map(({ item_id, name, arguments: args }) => [item_id, name, args])).toStrictEqual([
      ['fc_1', 'get_weather', '{"city":"Paris"}'],
      ['fc_2', 'get_time', '{"tz":"UTC"}'],
    ]);
    expect(terminalResponse(events).output).toStrictEqual(eventsOfType(events, 'response.output_item.done').map((event) => event.item));
  });

  it('treats a fragment with a new id as a new call even when the index repeats', () => {
    const sloppy = synthesize([
      toolCallChunk({ index: 0, id: 'call_1', function: { name: 'ls', arguments: '{}' } }),
      toolCallChunk({ index: 0, id: 'call_2', function: { name: 'pwd', arguments: '{"a":1}' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(terminalResponse(sloppy).output.map((item) => (item.type === 'function_call' ? [item.call_id, item.name, item.arguments] : null))).toStrictEqual([
      ['call_1', 'ls', '{}'],
      ['call_2', 'pwd', '{"a":1}'],
    ]);
  });

  it('waits for the name before announcing a call and sends the arguments that came first as one delta', () => {
    const late = synthesize([
      toolCallChunk({ index: 0, id: 'call_1', function: { arguments: '{"q":' } }),
      toolCallChunk({ index: 0, function: { name: 'search', arguments: '"x"}' } }),
      chunk({}, 'tool_calls'),
    ]);
    expect(eventsOfType(late, 'response.output_item.added')[0]?.item).toMatchObject({ name: 'search', arguments: '' });
    expect(eventsOfType(late, 'response.function_call_arguments.delta').map((event) => event.delta)).toStrictEqual(['{"q":"x"}']);
    expect(eventsOfType(late, 'response.function_call_arguments.done')[0]?.arguments).toBe('{"q":"x"}');
  });

  it('streams a custom tool call as custom_tool_call with its input unwrapped at the end', () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch';
    const wrapped = JSON.stringify({ input: patch });
    const custom = synthesize(
      [
        toolCallChunk({ index: 0, id: 'call_p', type: 'function', function: { name: 'apply_patch', arguments: wrapped.slice(0, 10) } }),
        toolCallChunk({ index: 0, function: { arguments: wrapped.slice(10) } }),
        chunk({}, 'tool_calls'),
      ],
      { tools: [{ type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } }] },
    );
    expect(custom.slice(2).map((event) => event.type)).toStrictEqual([
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(eventsOfType(custom, 'response.output_item.added')[0]?.item).toStrictEqual({ type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_p', name: 'apply_patch', input: '' });
    expect(eventsOfType(custom, 'response.custom_tool_call_input.delta')[0]?.delta).toBe(patch);
    expect(terminalResponse(custom).output).toStrictEqual([{ type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_p', name: 'apply_patch', input: patch }]);
  });
});

describe('responses stream synthesizer: reasoning', () => {
  const events = synthesize([
    chunk({ role: 'assistant', reasoning_content: 'The user ' }),
    chunk({ reasoning_content: 'says hi.' }),
    chunk({ content: 'Hi!' }),
    chunk({}, 'stop'),
  ]);

  it('streams reasoning_content as a summary of a reasoning item placed before the message', () => {
    expect(events.map((event) => event.type)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(eventsOfType(events, 'response.reasoning_summary_text.delta').map((event) => [event.item_id, event.summary_index, event.delta])).toStrictEqual([
      ['rs_1', 0, 'The user '],
      ['rs_1', 0, 'says hi.'],
    ]);
    expect(terminalResponse(events).output[0]).toStrictEqual({
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'The user says hi.' }],
      status: 'completed',
    });
  });
});

describe('responses stream synthesizer: endings', () => {
  it('ends a truncated answer with response.incomplete and incomplete items', () => {
    const events = synthesize([chunk({ content: 'Once upon a' }), chunk({}, 'length'), usageChunk(USAGE)]);
    expect(events.filter((event) => event.type.startsWith('response.') && 'response' in event).map((event) => event.type)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.incomplete',
    ]);
    expect(terminalResponse(events)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete', content: [{ type: 'output_text', text: 'Once upon a' }] }],
      usage: { total_tokens: 150 },
    });
  });

  it('fails after some deltas with response.failed as the last event and closes nothing', () => {
    const synthesizer = createResponsesStreamSynthesizer(testContext());
    const events = [
      ...synthesizer.start(),
      ...synthesizer.onChunk(chunk({ content: 'Partial ' })),
      ...synthesizer.onChunk(toolCallChunk({ index: 0, id: 'call_1', function: { name: 'ls', arguments: '{"pa' } })),
      ...synthesizer.fail({ code: 'server_error', message: 'The upstream connection was lost.' }),
    ];
    expect(events.at(-1)?.type).toBe('response.failed');
    expect(events.filter((event) => event.type.endsWith('.done'))).toStrictEqual([]);
    expect(terminalResponse(events)).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: 'The upstream connection was lost.' },
      output: [],
      completed_at: null,
    });
    expect([...synthesizer.onChunk(chunk({ content: 'late' })), ...synthesizer.finish(), ...synthesizer.fail({ code: 'server_error', message: 'again' })]).toStrictEqual([]);
  });

  it('tells Codex how long to wait on a rate limit, in the "try again in Ns" form it parses', () => {
    const failWith = (message: string, retryAfterSeconds?: number): string | undefined =>
      terminalResponse(
        createResponsesStreamSynthesizer(testContext()).fail({ code: 'rate_limit_exceeded', message, ...(retryAfterSeconds !== undefined && { retryAfterSeconds }) }),
      ).error?.message;
    const message = failWith('Rate limit reached for this route.', 11.2);
    expect(message).toBe('Rate limit reached for this route. Please try again in 12s.');
    expect(/try again in\s*(\d+(?:\.\d+)?)\s*(s|ms|seconds?)/i.exec(message ?? '')?.[1]).toBe('12');
    expect(failWith('Rate limited. Please try again in 3s.', 30)).toBe('Rate limited. Please try again in 3s.');
    expect(failWith('Rate limited.')).toBe('Rate limited.');
  });

  it('begins with response.created even when start() was skipped, and start() is not repeated', () => {
    const synthesizer = createResponsesStreamSynthesizer(testContext());
    const first = synthesizer.onChunk(chunk({ content: 'x' }));
    expect(first.slice(0, 2).map((event) => [event.type, event.sequence_number])).toStrictEqual([
      ['response.created', 0],
      ['response.in_progress', 1],
    ]);
    expect(synthesizer.start()).toStrictEqual([]);
  });

  it('completes an empty answer with no output items', () => {
    const events = synthesize([chunk({ role: 'assistant', content: '' }), chunk({}, 'stop')]);
    expect(events.map((event) => event.type)).toStrictEqual(['response.created', 'response.in_progress', 'response.completed']);
    expect(terminalResponse(events).output).toStrictEqual([]);
  });

  it('emits only JSON-serializable events', () => {
    const events = synthesize(TEXT_CHUNKS);
    expect(JSON.parse(JSON.stringify(events))).toStrictEqual(events);
  });
});
