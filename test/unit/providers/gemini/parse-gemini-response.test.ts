import { describe, expect, it } from 'vitest';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import { createGeminiAdapter } from '../../../../src/providers/gemini/index.js';
import { mapFinishReason } from '../../../../src/providers/gemini/map-finish-reason.js';
import { fixedClock, geminiContext } from './gemini-test-context.js';

const CALL_ID = /^call_[0-9A-Za-z]{24}$/;

function parse(body: unknown) {
  return createGeminiAdapter({ clock: fixedClock }).parseChatResponse(body, geminiContext());
}

describe('Gemini response → chat completion', () => {
  it('joins text parts, moves thought parts to reasoning_content and maps usage with thoughts', () => {
    const completion = parse({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Pondering…', thought: true }, { text: 'Hello ' }, { text: 'world' }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 100,
        toolUsePromptTokenCount: 5,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 30,
        cachedContentTokenCount: 40,
        totalTokenCount: 155,
      },
      modelVersion: 'gemini-2.5-flash-001',
      responseId: 'resp-abc',
    });
    expect(completion).toEqual({
      id: 'resp-abc',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'gemini-2.5-flash-001',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello world', refusal: null, reasoning_content: 'Pondering…' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 105,
        completion_tokens: 50,
        total_tokens: 155,
        prompt_tokens_details: { cached_tokens: 40 },
        completion_tokens_details: { reasoning_tokens: 30 },
      },
    });
  });

  it('turns functionCall parts into tool calls with minted ids, finish tool_calls and signatures in reasoning_details', () => {
    const completion = parse(
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLTE=' },
                { functionCall: { name: 'get_time' } },
              ],
            },
            finishReason: 'STOP',
          },
        ],
      },
    );
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const calls = choice.message.tool_calls!;
    expect(calls.map((call) => call.function)).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris"}' },
      { name: 'get_time', arguments: '{}' },
    ]);
    expect(calls[0]!.id).toMatch(CALL_ID);
    expect(calls[1]!.id).toMatch(CALL_ID);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    expect(choice.message.reasoning_details).toEqual([{ type: 'reasoning.encrypted', data: 'c2lnLTE=', id: calls[0]!.id, format: 'google-gemini-v1', index: 0 }]);
  });

  it('mints a chatcmpl id and uses the upstream model when Gemini sends neither', () => {
    const completion = parse({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' }] });
    expect(completion.id).toMatch(/^chatcmpl-[0-9A-Za-z]{24}$/);
    expect(completion.model).toBe('gemini-2.5-flash');
    expect(completion.usage).toBeUndefined();
  });

  it('reports a safety stop as content_filter and a token cap as length', () => {
    const completion = parse({
      candidates: [
        { content: { parts: [] }, finishReason: 'SAFETY', index: 0 },
        { content: { parts: [{ text: 'cut' }] }, finishReason: 'MAX_TOKENS', index: 1 },
      ],
    });
    expect(completion.choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason])).toEqual([
      [0, '', 'content_filter'],
      [1, 'cut', 'length'],
    ]);
  });

  it('answers a blocked prompt with empty content and content_filter', () => {
    const completion = parse({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } });
    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: '', refusal: null }, finish_reason: 'content_filter', logprobs: null },
    ]);
    expect(completion.usage?.prompt_tokens).toBe(9);
  });

  it('raises an upstream failure for a body that is not an object', () => {
    expect(() => parse('oops')).toThrow(UpstreamStreamError);
  });
});

describe('Gemini finish reasons', () => {
  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    [undefined, true, 'tool_calls'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['LANGUAGE', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'stop'],
    ['OTHER', false, 'stop'],
    ['FINISH_REASON_UNSPECIFIED', false, 'stop'],
  ] as const)('%s (tool calls: %s) → %s', (reason, hasToolCalls, expected) => {
    expect(mapFinishReason(reason, hasToolCalls)).toBe(expected);
  });
});
