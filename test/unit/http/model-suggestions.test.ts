import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SUGGESTIONS, suggestModels, unknownModel } from '../../../src/http/model-suggestions.js';

const CATALOG = ['router/frontier', 'router/fusion', 'openai/gpt-4.1', 'openai/gpt-5', 'openai/gpt-5-mini', 'anthropic/claude-sonnet-4.5', 'anthropic/claude-sonnet-4', 'anthropic/claude-opus-4.1', 'google/gemini-2.5-pro'];

describe('unknown_model suggestions', () => {
  it('finds the concrete model a newcomer meant by the provider’s own name', () => {
    expect(suggestModels('gpt5', CATALOG)[0]).toBe('openai/gpt-5');
    expect(suggestModels('gpt-5', CATALOG)[0]).toBe('openai/gpt-5');
    expect(suggestModels('claude-sonnet', CATALOG)).toEqual(['anthropic/claude-sonnet-4', 'anthropic/claude-sonnet-4.5']);
    expect(suggestModels('gpt-4.1-turbo', CATALOG)).toContain('openai/gpt-4.1');
    expect(suggestModels('fronteir', CATALOG)).toEqual(['router/frontier']);
    expect(suggestModels('Gemini 2.5 Pro', CATALOG)).toEqual(['google/gemini-2.5-pro']);
  });

  it('suggests nothing for a name like none of them, or for no name', () => {
    expect(suggestModels('llama-3-70b', CATALOG)).toEqual([]);
    expect(suggestModels('', CATALOG)).toEqual([]);
    expect(suggestModels('---', CATALOG)).toEqual([]);
  });

  it('never suggests a name the plan does not allow: the Free plan without openai/gpt-5', () => {
    const free = CATALOG.filter((id) => id !== 'openai/gpt-5');
    expect(suggestModels('gpt5', free)).not.toContain('openai/gpt-5');
  });

  it('always returns at most three of the allowed names, without repeats, whatever is asked', () => {
    const allowedList = fc.uniqueArray(fc.oneof(fc.constantFrom(...CATALOG), fc.string({ maxLength: 40 })), { maxLength: 40 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('gpt', 'claude', 'gpt5', 'router', 'o')), allowedList, (asked, allowed) => {
        const suggestions = suggestModels(asked, allowed);
        expect(suggestions.length).toBeLessThanOrEqual(MAX_SUGGESTIONS);
        expect(new Set(suggestions).size).toBe(suggestions.length);
        for (const id of suggestions) expect(allowed).toContain(id);
      }),
      { numRuns: 500 },
    );
  });

  it('stays fast on a huge name (the distance is computed on at most 64 characters)', () => {
    const started = performance.now();
    for (let i = 0; i < 100; i++) suggestModels('g'.repeat(100_000), CATALOG);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('puts the suggestions in the message and the `suggestions` field, beside the profiles', () => {
    const error = unknownModel('gpt5', ['router/frontier'], ['openai/gpt-5']);
    expect(error.message).toContain("The model 'gpt5' is not a route profile or a model this key may use. Did you mean openai/gpt-5?");
    expect(error.details).toEqual({ profiles: ['router/frontier'], suggestions: ['openai/gpt-5'] });
  });
});
