/**
 * Properties of the Messages ⇄ chat translators: a conversation keeps its text, tool calls and their ids,
 * images and stop reasons through Messages → chat → Messages; a stream gives the same final message as
 * the non-stream answer, however its bytes are split on the wire.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk, ChatFinishReason } from '../../../src/formats/openai-chat.js';
import type { MessagesMessage, MessagesResponse } from '../../../src/formats/anthropic-messages.js';
import { chatCompletionToMessage } from '../../../src/translators/messages/chat-to-message.js';
import { messagesRequestToChat } from '../../../src/translators/messages/messages-request-to-chat.js';
import { createMessagesStreamSynthesizer } from '../../../src/translators/messages/messages-stream-synthesizer.js';
import { createSseDecoder } from '../../../src/upstream/sse-decoder.js';

const text = fc.string({ minLength: 1, maxLength: 12 });
const toolId = fc.stringMatching(/^toolu_[A-Za-z0-9]{4,10}$/);
const toolCall = fc.record({ id: toolId, name: fc.stringMatching(/^[a-z_]{1,8}$/), input: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.oneof(fc.string(), fc.integer()), { maxKeys: 3 }) });
const finish = fc.constantFrom<ChatFinishReason>('stop', 'length', 'tool_calls', 'content_filter');
const STOP_OF: Record<ChatFinishReason, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal', function_call: 'tool_use' };

/** Assistant turns with text and tool calls, each answered by a user turn of tool results, text and an image. */
const conversation = fc.array(fc.record({ said: fc.option(text, { nil: undefined }), calls: fc.uniqueArray(toolCall, { selector: (call) => call.id, maxLength: 3 }), asked: text, image: fc.boolean() }), {
  minLength: 1,
  maxLength: 4,
});

describe('Messages → chat → Messages', () => {
  it('keeps every text, tool call id, tool result id and image of a conversation', () => {
    fc.assert(
      fc.property(conversation, (turns) => {
        const messages: MessagesMessage[] = [{ role: 'user', content: 'start' }];
        for (const turn of turns) {
          messages.push({ role: 'assistant', content: [...(turn.said ? [{ type: 'text' as const, text: turn.said }] : []), ...turn.calls.map((call) => ({ type: 'tool_use' as const, ...call }))] });
          messages.push({
            role: 'user',
            content: [
              ...turn.calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: `result of ${call.id}` })),
              { type: 'text' as const, text: turn.asked },
              ...(turn.image ? [{ type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png', data: 'AAAA' } }] : []),
            ],
          });
        }
        const chat = messagesRequestToChat({ model: 'm', max_tokens: 10, messages });
        const assistants = chat.messages.filter((message) => message.role === 'assistant');
        expect(assistants.map((message) => message.content ?? undefined)).toEqual(turns.map((turn) => turn.said));
        expect(assistants.map((message) => (message.tool_calls ?? []).map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)]))).toEqual(
          turns.map((turn) => turn.calls.map((call) => [call.id, call.name, call.input])),
        );
        // Every result follows its call directly, as chat requires, and names it by id.
        chat.messages.forEach((message, i) => {
          if (message.role !== 'tool') return;
          const owner = chat.messages.slice(0, i).reverse().find((earlier) => earlier.role !== 'tool');
          expect(owner?.tool_calls?.map((call) => call.id)).toContain(message.tool_call_id);
          expect(message.content).toBe(`result of ${message.tool_call_id}`);
        });
        const images = chat.messages.flatMap((message) => (Array.isArray(message.content) ? message.content.filter((part) => part.type === 'image_url') : []));
        expect(images).toHaveLength(turns.filter((turn) => turn.image).length);
      }),
    );
  });

  it('answers with the text, the tool calls under their own ids and the stop reason, which the next turn sends back unchanged', () => {
    fc.assert(
      fc.property(fc.option(text, { nil: null }), fc.uniqueArray(toolCall, { selector: (call) => call.id, maxLength: 3 }), finish, (content, calls, reason) => {
        const message = chatCompletionToMessage(completionOf(content, calls, reason), { id: 'msg_1', model: 'claude-sonnet-5-5' });
        expect(message.stop_reason).toBe(STOP_OF[reason]);
        const next = messagesRequestToChat({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: message.content }] });
        const assistant = next.messages[1]!;
        expect(assistant.content ?? null).toBe(content === '' ? null : content);
        expect((assistant.tool_calls ?? []).map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual(calls.map((call) => [call.id, call.name, call.input]));
      }),
    );
  });
});

describe('the Messages stream synthesizer', () => {
  it('gives the non-stream message however the answer is chunked and its bytes are split on the wire', () => {
    fc.assert(
      fc.property(
        fc.option(text, { nil: null }),
        fc.uniqueArray(toolCall, { selector: (call) => call.id, maxLength: 3 }),
        finish,
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 50 }),
        (content, calls, reason, cuts) => {
          const completion = completionOf(content, calls, reason);
          const expected = chatCompletionToMessage(completion, { id: 'msg_1', model: 'm' });
          const synthesizer = createMessagesStreamSynthesizer({ id: 'msg_1', model: 'm' });
          const events = [...synthesizer.start(), ...chunksOf(completion, cuts).flatMap((chunk) => synthesizer.onChunk(chunk)), ...synthesizer.finish()];
          const wire = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
          expect(accumulate(decodeInPieces(wire, cuts))).toEqual(expected);
        },
      ),
    );
  });
});

function completionOf(content: string | null, calls: ReadonlyArray<{ id: string; name: string; input: unknown }>, reason: ChatFinishReason): ChatCompletion {
  return {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(calls.length > 0 ? { tool_calls: calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.input) } })) } : {}),
        },
        finish_reason: reason,
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 },
  };
}

/** The completion as a chat stream, its text and arguments cut at the given lengths. */
function chunksOf(completion: ChatCompletion, cuts: readonly number[]): ChatCompletionChunk[] {
  const chunk = (delta: ChatCompletionChunk['choices'][number]['delta'], finishReason: ChatFinishReason | null = null): ChatCompletionChunk => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const { message, finish_reason } = completion.choices[0]!;
  const out = [chunk({ role: 'assistant', content: '' })];
  for (const piece of pieces(message.content ?? '', cuts)) out.push(chunk({ content: piece }));
  (message.tool_calls ?? []).forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const piece of pieces(call.function.arguments, cuts)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, finish_reason));
  out.push({ ...chunk({}), choices: [], usage: completion.usage! });
  return out;
}

function pieces(value: string, cuts: readonly number[]): string[] {
  const out: string[] = [];
  for (let at = 0, i = 0; at < value.length; i++) {
    const size = cuts[i % cuts.length]!;
    out.push(value.slice(at, at + size));
    at += size;
  }
  return out;
}

function decodeInPieces(wire: string, cuts: readonly number[]) {
  const decoder = createSseDecoder();
  const bytes = Buffer.from(wire, 'utf8');
  const events = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = cuts[i % cuts.length]!;
    events.push(...decoder.push(bytes.subarray(at, at + size)));
    at += size;
  }
  events.push(...decoder.end());
  return events;
}

/** What the SDK's accumulator does with a stream (the parts this router sends), independently written. */
function accumulate(events: ReadonlyArray<{ event?: string | undefined; data: string }>): MessagesResponse {
  let message: any;
  const partialJson = new Map<number, string>();
  let stops = 0;
  for (const { event, data } of events) {
    const json = JSON.parse(data);
    expect(json.type).toBe(event);
    switch (event) {
      case 'message_start':
        message = structuredClone(json.message);
        break;
      case 'content_block_start':
        expect(json.index).toBe(message.content.length);
        message.content.push(structuredClone(json.content_block));
        break;
      case 'content_block_delta': {
        const block = message.content[json.index];
        if (json.delta.type === 'text_delta') block.text += json.delta.text;
        if (json.delta.type === 'input_json_delta') partialJson.set(json.index, (partialJson.get(json.index) ?? '') + json.delta.partial_json);
        break;
      }
      case 'content_block_stop': {
        const block = message.content[json.index];
        if (block.type === 'tool_use') block.input = JSON.parse(partialJson.get(json.index) || '{}');
        break;
      }
      case 'message_delta':
        message.stop_reason = json.delta.stop_reason;
        message.stop_sequence = json.delta.stop_sequence;
        message.usage = { ...message.usage, ...json.usage };
        break;
      case 'message_stop':
        stops += 1;
        break;
    }
  }
  expect(stops).toBe(1);
  return message;
}
