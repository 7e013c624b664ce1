/**
 * Thinking blocks the router signed on a translated route, reaching a native Anthropic upstream: the
 * Anthropic blocks they carry come back as Anthropic made them, any other provider's are left out, and
 * thinking is turned off only where Anthropic would otherwise refuse the last tool turn.
 */
import { describe, expect, it } from 'vitest';
import type { MessagesRequest } from '../../../../src/formats/anthropic-messages.js';
import { encodeReasoningDetails } from '../../../../src/formats/reasoning-carrier.js';
import { buildNativeMessagesRequest } from '../../../../src/providers/anthropic/build-native-messages-request.js';
import { anthropicContext } from './anthropic-test-context.js';

const CALL = { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } };
const RESULT = { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] };
const GEMINI = encodeReasoningDetails([{ type: 'reasoning.encrypted', data: 'c2ln', id: 'toolu_1', format: 'google-gemini-v1', index: 0 }]);
const ANTHROPIC = encodeReasoningDetails([
  { type: 'reasoning.text', text: 'Check the weather.', signature: 'EqQBsig', format: 'anthropic-claude-v1', index: 0 },
  { type: 'reasoning.encrypted', data: 'EmwKredacted', format: 'anthropic-claude-v1', index: 1 },
]);

function sent(messages: unknown[]): Record<string, any> {
  const request = { model: 'm', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages } as unknown as MessagesRequest;
  return JSON.parse(buildNativeMessagesRequest(request, anthropicContext(), { version: undefined, betas: [] }).body as string);
}

describe('the router’s thinking blocks on a native Anthropic upstream', () => {
  it('become the Anthropic blocks they carry, signature and redacted data as Anthropic made them', () => {
    const body = sent([{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'Check the weather.', signature: ANTHROPIC }, CALL] }, RESULT]);
    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'Check the weather.', signature: 'EqQBsig' },
      { type: 'redacted_thinking', data: 'EmwKredacted' },
      CALL,
    ]);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('are left out when they carry another provider’s reasoning, thinking off when the last tool turn is left without one', () => {
    const body = sent([{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'Gemini thought.', signature: GEMINI }, { type: 'redacted_thinking', data: GEMINI }, CALL] }, RESULT]);
    expect(body.messages[1].content).toEqual([CALL]);
    expect(body).not.toHaveProperty('thinking');
  });

  it('keep thinking on when only an earlier turn lost its blocks, and leave Anthropic’s own blocks and other requests alone', () => {
    const own = { type: 'thinking', thinking: 'Mine.', signature: 'EqQBreal' };
    const messages = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Gemini thought.', signature: GEMINI }, { type: 'text', text: 'Earlier answer.' }] },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: [own, CALL] },
      RESULT,
    ];
    const body = sent(messages);
    expect(body.messages[1].content).toEqual([{ type: 'text', text: 'Earlier answer.' }]);
    expect(body.messages[3].content).toEqual([own, CALL]);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(sent(messages.slice(2)).messages).toEqual(messages.slice(2));
  });
});
