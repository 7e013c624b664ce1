import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenUsageFromChat } from '../../../src/translators/chat-token-usage.js';
import { tokenUsageFromResponses } from '../../../src/translators/responses/responses-token-usage.js';
import { mapUsage } from '../../../src/providers/anthropic/map-usage.js';
import { AnthropicStreamTranslator } from '../../../src/providers/anthropic/anthropic-stream-translator.js';
import { tokenUsageFromMessages } from '../../../src/translators/messages/messages-token-usage.js';

const count = fc.nat({ max: 1_000_000 });
const anthropicUsage = fc.record({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
  oneHour: count,
  thinking: count,
});

describe('token types from every wire format', () => {
  it("reads Anthropic's 1-hour cache writes and thinking tokens into chat usage, and the ledger's tokens from it", () => {
    const usage = mapUsage({
      input_tokens: 10, output_tokens: 50, cache_read_input_tokens: 100, cache_creation_input_tokens: 30,
      cache_creation: { ephemeral_5m_input_tokens: 20, ephemeral_1h_input_tokens: 10 }, output_tokens_details: { thinking_tokens: 40 },
    });
    expect(usage).toEqual({
      prompt_tokens: 140, completion_tokens: 50, total_tokens: 190,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 30, cache_write_1h_tokens: 10 },
      completion_tokens_details: { reasoning_tokens: 40 },
    });
    expect(tokenUsageFromChat(usage)).toEqual({ prompt: 140, completion: 50, reasoning: 40, cached: 100, cacheWrite: 30, cacheWrite1h: 10 });
  });

  it('leaves the cache-write fields out when nothing was written', () => {
    expect(tokenUsageFromChat({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 })).toEqual({ prompt: 5, completion: 1, reasoning: 0, cached: 0 });
    expect(tokenUsageFromResponses({ input_tokens: 5, input_tokens_details: { cached_tokens: 2, cache_write_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 6 })).toEqual({
      prompt: 5, completion: 1, reasoning: 0, cached: 2,
    });
  });

  it('keeps the cache_creation and output_tokens_details objects a message_delta restates', () => {
    const translator = new AnthropicStreamTranslator(1, 'claude');
    const event = (type: string, data: object) => translator.onEvent({ event: type, data: JSON.stringify({ type, ...data }) });
    event('message_start', { message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 3, output_tokens: 1 } } });
    event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9, cache_creation_input_tokens: 4, cache_creation: { ephemeral_1h_input_tokens: 4 }, output_tokens_details: { thinking_tokens: 6 } } });
    const usageChunk = event('message_stop', {}).at(-1);
    expect(usageChunk?.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 9, prompt_tokens_details: { cache_write_tokens: 4, cache_write_1h_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 6 } });
  });

  it('property: Anthropic usage gives the same tokens through chat as through the native Messages path, and parts never exceed wholes', () => {
    fc.assert(
      fc.property(anthropicUsage, ({ oneHour, thinking, ...counts }) => {
        const wire = { ...counts, cache_creation: { ephemeral_1h_input_tokens: oneHour }, output_tokens_details: { thinking_tokens: thinking } };
        const viaChat = tokenUsageFromChat(mapUsage(wire))!;
        expect(tokenUsageFromMessages(wire)).toEqual(viaChat);
        expect(viaChat.prompt).toBe(counts.input_tokens + counts.cache_read_input_tokens + counts.cache_creation_input_tokens);
        expect(viaChat.cached + (viaChat.cacheWrite ?? 0)).toBeLessThanOrEqual(viaChat.prompt);
        expect(viaChat.cacheWrite1h ?? 0).toBeLessThanOrEqual(viaChat.cacheWrite ?? 0);
        expect(viaChat.reasoning).toBeLessThanOrEqual(viaChat.completion);
      }),
    );
  });
});
