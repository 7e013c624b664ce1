import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTPUT_CAP_FIELDS, outputLimitsFrom, withinOutputLimit } from '../../../src/routing/output-limits.js';

describe('withinOutputLimit', () => {
  it('never sends a cap above the limit, keeps caps within it and every other field', () => {
    const cap = fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), cap, cap, fc.string(), (limit, maxTokens, maxCompletion, other) => {
        const body = { model: 'm', other, ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}), ...(maxCompletion !== undefined ? { max_completion_tokens: maxCompletion } : {}) };
        const out = withinOutputLimit(body, OUTPUT_CAP_FIELDS.chat, limit) as Record<string, unknown>;
        expect(out.other).toBe(other);
        expect(out.max_tokens).toBe(maxTokens === undefined ? undefined : Math.min(maxTokens, limit));
        expect(out.max_completion_tokens).toBe(maxCompletion === undefined ? undefined : Math.min(maxCompletion, limit));
        // The caller's body is never changed: failover sends it to the next candidate with its own limit.
        expect(body.max_tokens).toBe(maxTokens);
      }),
    );
  });

  it('leaves the body alone when the model has no known limit, or nothing is over it', () => {
    const body = { max_tokens: 128000 };
    expect(withinOutputLimit(body, OUTPUT_CAP_FIELDS.messages, undefined)).toBe(body);
    expect(withinOutputLimit(body, OUTPUT_CAP_FIELDS.messages, 128000)).toBe(body);
    expect(withinOutputLimit({ max_output_tokens: 90000 }, OUTPUT_CAP_FIELDS.responses, 32768)).toEqual({ max_output_tokens: 32768 });
  });

  it('looks limits up by provider and model', () => {
    const limits = outputLimitsFrom([{ provider: 'anthropic', model: 'claude-sonnet-4-5', maxOutputTokens: 64000 }]);
    expect(limits.of('anthropic', 'claude-sonnet-4-5')).toBe(64000);
    expect(limits.of('proxy', 'claude-sonnet-4-5')).toBeUndefined();
  });
});
