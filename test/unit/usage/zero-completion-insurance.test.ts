import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_FINISHES, NATURAL_ENDS, insuredCost, isInsured, shownCost, type AnswerEnding } from '../../../src/usage/zero-completion-insurance.js';

const finishes = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'error', 'end_turn', 'max_tokens', 'refusal', 'completed', 'failed', 'incomplete:max_output_tokens'), fc.string({ maxLength: 12 }));
const codes = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constantFrom('upstream_stream_interrupted', 'server_shutting_down', 'client_closed_request', 'server_error'));
const tokens = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(0), fc.nat({ max: 100_000 }));
const endings = fc.record<AnswerEnding>({ served: fc.boolean(), generates: fc.boolean(), completionTokens: tokens, finishReason: finishes, errorCode: codes });

const answer = (overrides: Partial<AnswerEnding>): AnswerEnding => ({ served: true, generates: true, completionTokens: 20, finishReason: 'stop', errorCode: undefined, ...overrides });

describe('zero-completion insurance', () => {
  it('insures an empty answer with no finish reason, and an error finish, on any completion API', () => {
    expect(isInsured(answer({ completionTokens: 0, finishReason: undefined }))).toBe(true);
    expect(isInsured(answer({ completionTokens: 0, finishReason: null }))).toBe(true);
    expect(isInsured(answer({ finishReason: 'error' }))).toBe(true);
    expect(isInsured(answer({ finishReason: 'failed', completionTokens: null }))).toBe(true);
    expect(isInsured(answer({ errorCode: 'upstream_stream_interrupted', finishReason: undefined, completionTokens: null }))).toBe(true);
    // A translation's default end on an empty answer (Messages' end_turn, a Response's completed) is no end at all.
    expect(isInsured(answer({ completionTokens: 0, finishReason: 'end_turn' }))).toBe(true);
    expect(isInsured(answer({ completionTokens: 0, finishReason: 'completed' }))).toBe(true);
  });

  it('charges a real answer, a deliberate end, a client that left, and what completes nothing', () => {
    expect(isInsured(answer({}))).toBe(false);
    expect(isInsured(answer({ completionTokens: 1, finishReason: undefined }))).toBe(false);
    expect(isInsured(answer({ completionTokens: 0, finishReason: 'length' }))).toBe(false);
    expect(isInsured(answer({ completionTokens: 0, finishReason: 'content_filter' }))).toBe(false);
    expect(isInsured(answer({ completionTokens: 0, finishReason: 'refusal' }))).toBe(false);
    expect(isInsured(answer({ errorCode: 'client_closed_request', completionTokens: 0, finishReason: undefined }))).toBe(false);
    expect(isInsured(answer({ generates: false, completionTokens: 0, finishReason: undefined }))).toBe(false);
    expect(isInsured(answer({ served: false, errorCode: 'all_upstreams_failed' }))).toBe(false);
  });

  it('never insures what no upstream served or what completes nothing (embeddings, rerank)', () => {
    fc.assert(fc.property(endings, (ending) => !(ending.served && ending.generates) ? !isInsured(ending) : true));
  });

  it('insures every error finish and every in-band error except a client leaving, whatever the tokens', () => {
    fc.assert(
      fc.property(endings, (ending) => {
        const served = { ...ending, served: true, generates: true };
        if (served.errorCode) expect(isInsured(served)).toBe(served.errorCode !== 'client_closed_request');
        else if (served.finishReason && ERROR_FINISHES.has(served.finishReason)) expect(isInsured(served)).toBe(true);
      }),
    );
  });

  it('insures an answer that ended without error only when it completed zero tokens and ended by itself or not at all', () => {
    fc.assert(
      fc.property(endings, (ending) => {
        const clean = { ...ending, served: true, generates: true, errorCode: undefined };
        if (clean.finishReason && ERROR_FINISHES.has(clean.finishReason)) return;
        const endedByItself = !clean.finishReason || NATURAL_ENDS.has(clean.finishReason);
        expect(isInsured(clean)).toBe(clean.completionTokens === 0 && endedByItself);
      }),
    );
  });

  it('shows an insured answer at 0 in every figure, and any other answer at its price', () => {
    const priced = { cost: 0.0025, cost_details: { input: 0.0016, cache_read: 0.0001, cache_write: 0, cache_write_1h: 0, output: 0.0008, reasoning: 0, server_tools: 0, cache_savings: 0.0003 } };
    fc.assert(
      fc.property(endings, (ending) => {
        const shown = shownCost(priced, ending);
        if (isInsured(ending)) {
          expect(shown).toEqual(insuredCost());
          expect(Object.values(shown!.cost_details).every((figure) => figure === 0)).toBe(true);
        } else expect(shown).toBe(priced);
      }),
    );
    // Insured even when the model has no price: the caller is shown 0, not an unknown.
    expect(shownCost(undefined, answer({ completionTokens: 0, finishReason: null }))).toEqual(insuredCost());
  });
});
