/**
 * Properties of thinking on the translated Messages path: any `thinking` a client sends becomes, for
 * any catalog entry, a control within the provider's bounds (Gemini's thinkingBudget within the model's
 * budgets or one of its levels, an OpenAI-format effort every reasoning model accepts, an Anthropic
 * budget of at least 1024 under max_tokens); and any reasoning an upstream returns comes back, after a
 * round trip through a thinking block the client keeps (answered whole or streamed, read by the SDK's own
 * accumulator), as exactly the reasoning details the upstream gave.
 */
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CatalogModel, ModelReasoning } from '../../../src/config/types.js';
import type { ChatCompletion, ChatCompletionChunk, ReasoningDetail } from '../../../src/formats/openai-chat.js';
import type { MessagesRequest } from '../../../src/formats/anthropic-messages.js';
import { MAX_OUTPUT_TOKENS } from '../../../src/formats/wire-schema.js';
import { buildAnthropicRequest } from '../../../src/providers/anthropic/build-anthropic-request.js';
import { buildChatRequest } from '../../../src/providers/openai/build-chat-request.js';
import { translateGenerationConfig } from '../../../src/providers/gemini/translate-generation-config.js';
import { chatCompletionToMessage } from '../../../src/translators/messages/chat-to-message.js';
import { messagesRequestToChat } from '../../../src/translators/messages/messages-request-to-chat.js';
import { createMessagesStreamSynthesizer } from '../../../src/translators/messages/messages-stream-synthesizer.js';
import { openaiContext } from '../providers/openai/openai-context.js';

const EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh'] as const;
const PORTABLE = ['low', 'medium', 'high'];

/** `thinking` as clients send it, well-formed or not (the field is passed on unchecked). */
const thinking = fc.oneof(
  fc.record({ type: fc.constant('enabled'), budget_tokens: fc.integer({ min: 1, max: MAX_OUTPUT_TOKENS }) }),
  fc.record({ type: fc.constant('enabled'), budget_tokens: fc.oneof(fc.constant(undefined), fc.double(), fc.string()) }),
  fc.record({ type: fc.constant('adaptive') }),
  fc.record({ type: fc.constant('disabled') }),
  fc.record({ type: fc.string() }),
);
const effort = fc.option(fc.oneof(fc.constantFrom('low', 'medium', 'high', 'max'), fc.string()), { nil: undefined });

/** A catalog `reasoning` table: budgets rising with the effort (some left out), Gemini 3's levels, or `{}`. */
const table: fc.Arbitrary<ModelReasoning> = fc.oneof(
  fc.constant({}),
  fc.constant({ levels: true }),
  fc.tuple(fc.array(fc.integer({ min: 0, max: 65536 }), { minLength: 5, maxLength: 5 }), fc.array(fc.boolean(), { minLength: 5, maxLength: 5 })).map(([budgets, kept]) => {
    const sorted = [...budgets].sort((a, b) => a - b);
    return Object.fromEntries(EFFORTS.flatMap((name, i) => (kept[i] ? [[name, sorted[i]!]] : []))) as ModelReasoning;
  }),
);

function requestOf(value: unknown, asked: unknown, maxTokens: number): MessagesRequest {
  return { model: 'm', max_tokens: maxTokens, messages: [{ role: 'user', content: 'q' }], thinking: value as MessagesRequest['thinking'], ...(asked === undefined ? {} : { output_config: { effort: asked } }) };
}

const asksThinking = (value: { type: unknown; budget_tokens?: unknown }) => value.type === 'enabled' || value.type === 'adaptive';

describe('the thinking-config mapping', () => {
  it('gives every provider a control within its bounds, and none when thinking is off', () => {
    fc.assert(
      fc.property(thinking, effort, table, fc.integer({ min: 1, max: MAX_OUTPUT_TOKENS }), (value, asked, reasoning, maxTokens) => {
        const chat = messagesRequestToChat(requestOf(value, asked, maxTokens));
        const model: CatalogModel = { provider: 'p', model: 'm', maxOutputTokens: 128000, reasoning };
        const listed = EFFORTS.filter((name) => reasoning[name] !== undefined);
        const words = [...PORTABLE, ...listed];

        const gemini = translateGenerationConfig(chat, model)?.thinkingConfig;
        const openai = JSON.parse(buildChatRequest(chat, openaiContext({}, { model })).body as string);
        if (!asksThinking(value)) {
          expect(gemini).toBeUndefined();
          expect(openai).not.toHaveProperty('reasoning_effort');
          return;
        }
        expect(gemini?.includeThoughts).toBe(true);
        if (reasoning.levels === true) expect(words).toContain(gemini?.thinkingLevel);
        else if (listed.length > 0) {
          const budgets = listed.map((name) => reasoning[name] as number);
          expect(gemini?.thinkingBudget).toBeGreaterThanOrEqual(Math.min(...budgets));
          expect(gemini?.thinkingBudget).toBeLessThanOrEqual(Math.max(...budgets));
        } else expect(gemini?.thinkingBudget).toBeGreaterThan(0);
        expect(words).toContain(openai.reasoning_effort);
        expect(openai).not.toHaveProperty('reasoning');

        // An Anthropic fusion member: Anthropic's minimum budget, always below max_tokens, within the model's limit.
        const anthropic = JSON.parse(buildAnthropicRequest(chat, { ...openaiContext({ format: 'anthropic' }, { model: { ...model, reasoning: { low: 2048 } } }) }).body as string);
        if (anthropic.thinking?.type === 'enabled') {
          expect(anthropic.thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
          expect(anthropic.thinking.budget_tokens).toBeLessThan(anthropic.max_tokens);
          expect(anthropic.max_tokens).toBeLessThanOrEqual(128000);
        }
      }),
    );
  });
});

const words = fc.string({ minLength: 1, maxLength: 30 });
/** Reasoning details as upstreams return them: Gemini's signatures by call id, a host's encrypted reasoning, signed text. */
const detail: fc.Arbitrary<ReasoningDetail> = fc.oneof(
  fc.record({ type: fc.constant('reasoning.encrypted'), data: fc.base64String({ minLength: 4, maxLength: 80 }), id: fc.stringMatching(/^call_[a-z0-9]{6}$/), format: fc.constant('google-gemini-v1') }),
  fc.record({ type: fc.constant('reasoning.encrypted'), data: words, format: fc.constant('openai-responses-v1') }),
  fc.record({ type: fc.constant('reasoning.text'), text: words, signature: words, format: fc.constant('anthropic-claude-v1') }),
);
const reasoned = fc.record({
  thoughts: fc.option(words, { nil: undefined }),
  details: fc.array(detail, { maxLength: 3 }).map((all) => all.map((one, index) => ({ ...one, index }))),
  text: fc.option(words, { nil: undefined }),
  call: fc.boolean(),
});

type Answer = typeof reasoned extends fc.Arbitrary<infer T> ? T : never;

function completionOf({ thoughts, details, text, call }: Answer): ChatCompletion {
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
          content: text ?? null,
          refusal: null,
          ...(thoughts === undefined ? {} : { reasoning_content: thoughts }),
          ...(details.length === 0 ? {} : { reasoning_details: details }),
          ...(call ? { tool_calls: [{ id: 'call_abc123', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] } : {}),
        },
        finish_reason: call ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
  };
}

/** The completion as a Gemini-like stream: thoughts first, then the text, then the details with the call (or alone). */
function chunksOf(completion: ChatCompletion): ChatCompletionChunk[] {
  const { message, finish_reason } = completion.choices[0]!;
  const chunk = (delta: ChatCompletionChunk['choices'][number]['delta'], finish: ChatCompletion['choices'][number]['finish_reason'] = null): ChatCompletionChunk => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const out = [chunk({ role: 'assistant' })];
  if (message.reasoning_content) out.push(chunk({ reasoning_content: message.reasoning_content }));
  const details = message.reasoning_details ?? [];
  const calls = (message.tool_calls ?? []).map((call, index) => ({ index, ...call }));
  if (message.content) out.push(chunk({ content: message.content }));
  out.push(chunk({ ...(details.length > 0 ? { reasoning_details: details } : {}), ...(calls.length > 0 ? { tool_calls: calls } : {}) }));
  out.push(chunk({}, finish_reason));
  out.push({ ...chunk({}), choices: [], usage: completion.usage! });
  return out;
}

/** The SDK's own accumulator over the events (its JSON-lines reader: the events as the SSE data carries them). */
async function sdkMessage(completion: ChatCompletion) {
  const synthesizer = createMessagesStreamSynthesizer({ id: 'msg_1', model: 'm' });
  const events = [...synthesizer.start(), ...chunksOf(completion).flatMap((chunk) => synthesizer.onChunk(chunk)), ...synthesizer.finish()];
  const body = new Blob([events.map((event) => JSON.stringify(event)).join('\n')]).stream();
  return MessageStream.fromReadableStream(body).finalMessage();
}

describe('reasoning through a thinking block and back', () => {
  it('returns exactly the upstream’s reasoning details and text on the next turn, answered whole or streamed', async () => {
    await fc.assert(
      fc.asyncProperty(reasoned, async (answer) => {
        const completion = completionOf(answer);
        const whole = chatCompletionToMessage(completion, { id: 'msg_1', model: 'm' });
        const streamed = await sdkMessage(completion);
        // Answered whole, reasoning leads; streamed, details after the text come where they arrive.
        if (answer.thoughts !== undefined) expect(whole.content[0]).toMatchObject({ type: 'thinking', thinking: answer.thoughts });
        else if (answer.details.length > 0) expect(whole.content[0]?.type).toBe('redacted_thinking');
        if (answer.thoughts !== undefined) expect(streamed.content[0]).toMatchObject({ type: 'thinking', thinking: answer.thoughts });
        for (const content of [whole.content, streamed.content]) {
          const next = messagesRequestToChat({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: content as never }] }).messages[1]!;
          expect(next.reasoning_content).toBe(answer.thoughts);
          expect(next.reasoning_details ?? []).toEqual(answer.details);
        }
        const withoutRedacted = (blocks: ReadonlyArray<{ type: string }>) => blocks.map((block) => block.type).filter((type) => type !== 'redacted_thinking');
        expect(withoutRedacted(streamed.content)).toEqual(withoutRedacted(whole.content));
      }),
      { numRuns: 60 },
    );
  });
});
