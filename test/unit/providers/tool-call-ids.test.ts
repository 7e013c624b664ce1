/**
 * Tool-call ids across providers (providers/tool-call-ids.ts), through the real adapters: whatever ids a
 * conversation carries, every id a provider receives meets its rule, every call still pairs with the
 * result that answers it, distinct ids stay distinct, and an id that is legal everywhere (every id the
 * router hands a client: the providers' own, and the `call_…` it mints for Gemini) reaches the provider
 * unchanged, so it maps back to the same upstream call.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from '../../../src/formats/openai-chat.js';
import { buildAnthropicRequest } from '../../../src/providers/anthropic/build-anthropic-request.js';
import { mintId } from '../../../src/providers/gemini/mint-id.js';
import { buildChatRequest } from '../../../src/providers/openai/build-chat-request.js';
import { ANTHROPIC_TOOL_USE_ID, OPENAI_TOOL_CALL_ID, toolCallIdFor } from '../../../src/providers/tool-call-ids.js';
import { anthropicContext } from './anthropic/anthropic-test-context.js';
import { openaiContext } from './openai/openai-context.js';

/** Ids of every shape a moved conversation carries: the providers' own, a client's, LiteLLM's signature-in-id, any unicode (an empty one is the client's error, refused). */
const anyId = fc.oneof(
  fc.string({ minLength: 1, maxLength: 80 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  fc.stringMatching(/^call_[A-Za-z0-9]{24}$/),
  fc.stringMatching(/^toolu_[A-Za-z0-9]{24}$/),
  fc.base64String({ minLength: 200, maxLength: 400 }).map((signature) => `call_abc__thought__${signature}`),
);

/** One assistant step calling each id once, then one tool message per call. */
function conversation(ids: readonly string[]): ChatRequest {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Go' },
    { role: 'assistant', content: null, tool_calls: ids.map((id, i) => ({ id, type: 'function' as const, function: { name: `f${i}`, arguments: '{}' } })) },
    ...ids.map((id, i): ChatMessage => ({ role: 'tool', tool_call_id: id, content: `result ${i}` })),
  ];
  return { model: 'm', messages };
}

function anthropicPairs(request: ChatRequest): { uses: string[]; results: string[] } {
  const body = JSON.parse(buildAnthropicRequest(request, anthropicContext()).body) as { messages: Array<{ content: Array<Record<string, string>> }> };
  const blocks = body.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  return { uses: blocks.filter((b) => b.type === 'tool_use').map((b) => b.id!), results: blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id!) };
}

function openaiPairs(request: ChatRequest): { uses: string[]; results: string[] } {
  const body = JSON.parse(buildChatRequest(request, openaiContext()).body) as { messages: Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }> };
  return {
    uses: body.messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id)),
    results: body.messages.flatMap((message) => (message.tool_call_id === undefined ? [] : [message.tool_call_id])),
  };
}

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]{1,64}$/;

describe('tool-call ids across providers', () => {
  it('every id sent to Anthropic or OpenAI meets its rule, each result pairs with its call, distinct ids stay distinct', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anyId, { minLength: 1, maxLength: 6 }), (ids) => {
        const request = conversation(ids);
        const anthropic = anthropicPairs(request);
        for (const id of anthropic.uses) expect(id).toMatch(ANTHROPIC_ID);
        expect(anthropic.results).toEqual(anthropic.uses);
        expect(new Set(anthropic.uses).size).toBe(ids.length);

        const openai = openaiPairs(request);
        for (const id of openai.uses) expect(id.length).toBeGreaterThan(0), expect(id.length).toBeLessThanOrEqual(40);
        expect(openai.results).toEqual(openai.uses);
        expect(new Set(openai.uses).size).toBe(ids.length);
      }),
      { numRuns: 300 },
    );
  });

  it('an id the router hands a client (legal everywhere) reaches every provider unchanged: it maps back to the same upstream call', () => {
    const handedOut = fc.oneof(
      fc.constant(null).map(() => mintId('call_')),
      fc.stringMatching(/^toolu_[A-Za-z0-9]{24}$/),
      fc.stringMatching(/^call_[A-Za-z0-9]{24}$/),
    );
    fc.assert(
      fc.property(fc.uniqueArray(handedOut, { minLength: 1, maxLength: 5 }), (ids) => {
        const request = conversation(ids);
        expect(anthropicPairs(request).uses).toEqual(ids);
        expect(openaiPairs(request).uses).toEqual(ids);
      }),
    );
  });

  it('is a pure function: the same id maps to the same id on every turn and every instance', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        expect(toolCallIdFor(id, ANTHROPIC_TOOL_USE_ID)).toBe(toolCallIdFor(id, ANTHROPIC_TOOL_USE_ID));
        expect(toolCallIdFor(id, OPENAI_TOOL_CALL_ID)).toBe(toolCallIdFor(id, OPENAI_TOOL_CALL_ID));
      }),
    );
  });

  it('leaves Google’s extra_content out of what an OpenAI-compatible host receives', () => {
    const request = conversation(['call_1']);
    (request.messages[1]!.tool_calls![0] as Record<string, unknown>).extra_content = { google: { thought_signature: 'c2ln' } };
    const body = JSON.parse(buildChatRequest(request, openaiContext()).body) as { messages: Array<{ tool_calls?: Array<Record<string, unknown>> }> };
    expect(body.messages[1]!.tool_calls![0]).toEqual({ id: 'call_1', type: 'function', function: { name: 'f0', arguments: '{}' } });
  });
});
