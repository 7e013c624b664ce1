import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundConversation, chatMessages, MAX_CARRIED_BYTES, MAX_EXCHANGES, parseConversation, readChatParameters, serializeConversation, type ChatTurn } from '../../../src/app/playground/chat-turns.js';

const encoded = (value: string) => new URLSearchParams({ v: value }).toString().length - 2;
const text = (maxLength: number) => fc.oneof(fc.string({ maxLength }), fc.string({ unit: 'binary', maxLength }), fc.constant('鵜'.repeat(maxLength)));
const exchange = fc.tuple(text(1500), text(3000), fc.option(fc.constantFrom('0.000012', '1.50'), { nil: null })).map(
  ([question, answer, cost]): ChatTurn[] => [
    { role: 'user', content: question },
    { role: 'assistant', content: answer, cost, model: 'router/frontier' },
  ],
);
const conversation = fc.array(exchange, { maxLength: 14 }).map((pairs) => pairs.flat());

describe('the playground conversation carried in the page', () => {
  it('reads back what it wrote, for any conversation within its bounds', () => {
    fc.assert(
      fc.property(conversation, (turns) => {
        const { turns: bounded } = boundConversation(turns);
        expect(parseConversation(serializeConversation(bounded))).toEqual({ ok: true, turns: bounded });
      }),
    );
  });

  it('bounds any conversation to the newest exchanges within the turn and byte limits, the newest question whole', () => {
    fc.assert(
      fc.property(conversation, (turns) => {
        const bounded = boundConversation(turns);
        expect(bounded.turns.length).toBeLessThanOrEqual(MAX_EXCHANGES * 2);
        expect(bounded.turns.length % 2).toBe(0);
        if (turns.length > 0) {
          // The newest question whole whenever it fits alone; the carried text within the bound always.
          if (encoded(serializeConversation([turns.at(-2)!, { ...turns.at(-1)!, content: '' }])) <= MAX_CARRIED_BYTES) expect(bounded.turns.at(-2)).toEqual(turns.at(-2));
          else expect(bounded.turns.at(-2)!.content.endsWith('…')).toBe(true);
          expect(bounded.turns.length).toBeGreaterThanOrEqual(2);
          expect(encoded(serializeConversation(bounded.turns))).toBeLessThanOrEqual(MAX_CARRIED_BYTES);
        }
        expect(bounded.dropped).toBe(JSON.stringify(bounded.turns) !== JSON.stringify(turns));
        expect(parseConversation(serializeConversation(bounded.turns)).ok).toBe(true);
      }),
    );
  });

  it('refuses anything but alternating user and assistant turns of text, whatever the browser sends', () => {
    for (const field of ['{}', '[1]', 'null', '[{"role":"user"}]', '[{"role":"user","content":"a"}]', '[{"role":"system","content":"a"},{"role":"assistant","content":"b"}]', '[{"role":"user","content":"a"},{"role":"user","content":"b"}]', '[{"role":"user","content":"a"},{"role":"tool","content":"b"}]']) {
      expect(parseConversation(field), field).toEqual({ ok: false });
    }
    fc.assert(
      fc.property(fc.string(), (field) => {
        expect(typeof parseConversation(field).ok).toBe('boolean');
      }),
    );
    // A cost that is not a plain decimal is dropped, never shown.
    expect(parseConversation('[{"role":"user","content":"a"},{"role":"assistant","content":"b","cost":"<b>1</b>"}]')).toEqual({ ok: true, turns: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b', cost: null, model: null }] });
    expect(parseConversation('')).toEqual({ ok: true, turns: [] });
  });

  it('sends the earlier turns and then the new message, without costs or models', () => {
    expect(chatMessages([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b', cost: '0.01', model: 'm' }], 'c')).toEqual([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ]);
  });

  it('accepts temperature 0 to 2 or empty, and max tokens 1 to the cap or empty', () => {
    expect(readChatParameters({}, 400)).toEqual({ ok: true, value: { temperature: null, maxTokens: 400 } });
    expect(readChatParameters({ temperature: '0', max_output: '1' }, 400)).toEqual({ ok: true, value: { temperature: 0, maxTokens: 1 } });
    expect(readChatParameters({ temperature: '2', max_output: '400' }, 400)).toEqual({ ok: true, value: { temperature: 2, maxTokens: 400 } });
    fc.assert(
      fc.property(fc.string(), fc.string(), (temperature, maxOutput) => {
        const read = readChatParameters({ temperature, max_output: maxOutput }, 400);
        if (read.ok) {
          expect(read.value.temperature === null || (read.value.temperature >= 0 && read.value.temperature <= 2)).toBe(true);
          expect(Number.isInteger(read.value.maxTokens) && read.value.maxTokens >= 1 && read.value.maxTokens <= 400).toBe(true);
        }
      }),
    );
    for (const [temperature, maxOutput] of [['2.1', ''], ['-0.5', ''], ['1e0', ''], ['', '401'], ['', '0'], ['', '-3'], ['', '2.0']]) {
      expect(readChatParameters({ temperature: temperature!, max_output: maxOutput! }, 400).ok, `${temperature} ${maxOutput}`).toBe(false);
    }
  });
});
