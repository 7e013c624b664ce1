/**
 * A preset saved from a real request keeps only configuration fields (never the conversation), and a
 * preset applied to a request fills only what the request left unset, in that API's own fields.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRESET_CONFIG_FIELDS, configFromRequest, parsePresetReference, type PresetApi } from '../../../src/accounts/preset-config.js';
import { applyPresetConfig } from '../../../src/accounts/preset-merge.js';
import { PresetInputError, checkPresetConfig } from '../../../src/accounts/preset-service.js';

const APIS: readonly PresetApi[] = ['chat', 'responses', 'messages'];
const CONVERSATION = ['messages', 'input', 'stream', 'tools', 'tool_choice', 'prompt', 'previous_response_id'];

/** Request-like bodies: the fields the filter reads, with values of any JSON type, among arbitrary others. */
const requestBody = fc.dictionary(
  fc.oneof(fc.constantFrom('model', 'provider', 'temperature', 'top_p', 'top_k', 'max_tokens', 'max_completion_tokens', 'max_output_tokens', 'stop', 'stop_sequences', 'seed', 'presence_penalty', 'frequency_penalty', 'reasoning', 'reasoning_effort', 'instructions', 'system', ...CONVERSATION), fc.string()),
  fc.jsonValue(),
);

describe('configFromRequest keeps only configuration fields', () => {
  it('never returns a key outside the preset fields, and never the conversation, for any body of any API', () => {
    fc.assert(
      fc.property(fc.constantFrom(...APIS), requestBody, (api, body) => {
        const config = configFromRequest(api, body);
        for (const key of Object.keys(config)) expect(PRESET_CONFIG_FIELDS.has(key)).toBe(true);
        for (const key of CONVERSATION) expect(config).not.toHaveProperty(key);
      }),
    );
  });

  it('keeps a chat request’s leading system message, parameters and model, and drops the user’s words', () => {
    const body = {
      model: 'openai/gpt-4.1@preset/old',
      messages: [{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }, { role: 'user', content: 'a private question' }],
      stream: true,
      temperature: 0.4,
      max_tokens: 100,
      max_completion_tokens: 200,
      stop: 'END',
      reasoning: { effort: 'low' },
    };
    const config = configFromRequest('chat', body);
    expect(config).toEqual({ model: 'openai/gpt-4.1', system: 'Be brief.', temperature: 0.4, max_tokens: 200, stop: ['END'], reasoning_effort: 'low' });
    expect(JSON.stringify(config)).not.toContain('private');
  });

  it('reads Responses’ instructions and max_output_tokens and Messages’ system blocks and stop_sequences', () => {
    expect(configFromRequest('responses', { model: 'router/frontier', input: 'secret', instructions: 'Sys', max_output_tokens: 64, reasoning: { effort: 'high' } })).toEqual({
      model: 'router/frontier',
      system: 'Sys',
      max_tokens: 64,
      reasoning_effort: 'high',
    });
    expect(configFromRequest('messages', { model: '@preset/x', system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }], max_tokens: 9, top_k: 5, stop_sequences: ['x'], messages: [] })).toEqual({
      system: 'A\n\nB',
      max_tokens: 9,
      top_k: 5,
      stop: ['x'],
    });
  });

  it('is accepted by the preset schema whenever its values are in range (what it keeps has the schema’s types)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...APIS), fc.record({ temperature: fc.double({ min: 0, max: 2, noNaN: true }), top_p: fc.double({ min: 0, max: 1, noNaN: true }), max_tokens: fc.integer({ min: 1, max: 1000 }), model: fc.string({ minLength: 1, maxLength: 50 }).filter((model) => !model.includes('@preset/')) }), (api, body) => {
        const field = api === 'responses' ? { max_output_tokens: body.max_tokens } : { max_tokens: body.max_tokens };
        expect(() => checkPresetConfig(configFromRequest(api, { ...body, max_tokens: undefined, ...field }))).not.toThrow();
      }),
    );
  });
});

describe('checkPresetConfig', () => {
  it('names the field it refuses', () => {
    expect(() => checkPresetConfig({ temperature: 3 })).toThrow(expect.objectContaining({ field: 'config.temperature' }));
    expect(() => checkPresetConfig({ messages: [] })).toThrow(PresetInputError);
    expect(() => checkPresetConfig({ system: 'x'.repeat(70_000) })).toThrow(expect.objectContaining({ field: 'config' }));
    expect(() => checkPresetConfig([])).toThrow(PresetInputError);
  });
});

describe('parsePresetReference', () => {
  it('reads @preset/<slug> and <model>@preset/<slug>, and nothing else', () => {
    expect(parsePresetReference('@preset/a-b')).toEqual({ slug: 'a-b', model: undefined });
    expect(parsePresetReference('openai/gpt-4.1@preset/x')).toEqual({ slug: 'x', model: 'openai/gpt-4.1' });
    expect(parsePresetReference('router/frontier')).toBeUndefined();
    expect(parsePresetReference(42)).toBeUndefined();
  });
});

describe('applyPresetConfig', () => {
  const config = { model: 'openai/gpt-4.1', system: 'Sys', temperature: 0.3, max_tokens: 100, stop: ['END'], top_k: 4, reasoning_effort: 'low' as const };

  it('fills only what the request left unset, in each API’s own fields', () => {
    const chat: Record<string, unknown> = { messages: [{ role: 'user', content: 'hi' }], temperature: 1, max_completion_tokens: 5 };
    applyPresetConfig('chat', config, chat);
    expect(chat).toEqual({ model: 'openai/gpt-4.1', messages: [{ role: 'system', content: 'Sys' }, { role: 'user', content: 'hi' }], temperature: 1, max_completion_tokens: 5, stop: ['END'], reasoning_effort: 'low' });

    const responses: Record<string, unknown> = { model: 'router/frontier', input: 'hi' };
    applyPresetConfig('responses', config, responses);
    expect(responses).toEqual({ model: 'router/frontier', input: 'hi', instructions: 'Sys', temperature: 0.3, max_output_tokens: 100, reasoning: { effort: 'low' } });

    const messages: Record<string, unknown> = { messages: [], system: 'Mine' };
    applyPresetConfig('messages', config, messages);
    expect(messages).toEqual({ model: 'openai/gpt-4.1', messages: [], system: 'Mine', temperature: 0.3, max_tokens: 100, top_k: 4, stop_sequences: ['END'] });
  });

  it('never changes a field the request set, for any request', () => {
    fc.assert(
      fc.property(fc.constantFrom(...APIS), requestBody, (api, body) => {
        const before = structuredClone(body);
        const merged = structuredClone(body);
        applyPresetConfig(api, config, merged);
        for (const [field, value] of Object.entries(before)) {
          if (value === null || (field === 'messages' && api === 'chat')) continue;
          expect(merged[field]).toEqual(value);
        }
      }),
    );
  });
});
