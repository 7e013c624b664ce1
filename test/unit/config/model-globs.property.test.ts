import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatcher, globMatches } from '../../../src/config/model-globs.js';

/** The meaning the matcher must keep: `*` is any run of characters, everything else literal. */
const asRegex = (pattern: string) => new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&')).join('.*')}$`);

// Few distinct characters, so patterns and names often overlap and both answers occur.
const text = (maxLength: number) => fc.string({ unit: fc.constantFrom('a', 'b', '/', '-', '.', '*'), maxLength });
const name = (maxLength: number) => fc.string({ unit: fc.constantFrom('a', 'b', '/', '-', '.'), maxLength });

describe('model globs', () => {
  it('match exactly what the `*` glob means, for any pattern and name', () => {
    fc.assert(
      fc.property(text(12), name(16), (pattern, candidate) => {
        expect(globMatches(pattern, candidate)).toBe(asRegex(pattern).test(candidate));
        expect(globMatcher(pattern)(candidate)).toBe(asRegex(pattern).test(candidate));
      }),
      { numRuns: 2000 },
    );
  });

  it('a name that matches a pattern with its stars filled in always matches', () => {
    fc.assert(
      fc.property(fc.array(name(6), { minLength: 1, maxLength: 6 }), fc.array(name(5), { maxLength: 6 }), (parts, fills) => {
        const pattern = parts.join('*');
        const filled = parts.map((part, index) => (index === 0 ? part : `${fills[index - 1] ?? ''}${part}`)).join('');
        expect(globMatches(pattern, filled)).toBe(true);
      }),
    );
  });

  it('a guardrail-sized pattern of many stars against a long caller-chosen name answers at once (no backtracking blow-up)', () => {
    // The regular expression took 29 s for eight stars against 64 characters; here it is at most 128 × 256 steps.
    const pattern = `${'a*'.repeat(63)}b`;
    expect(pattern.length).toBeLessThanOrEqual(128);
    expect(globMatches(pattern, 'a'.repeat(256))).toBe(false);
    expect(globMatches(pattern, `${'a'.repeat(255)}b`)).toBe(true);
  });
});
