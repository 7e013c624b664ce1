import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findNonFiniteNumber } from '../../../src/core/find-non-finite-number.js';

/** The plain definition: depth first in document order, a path built for every member. */
function reference(value: unknown, path = ''): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = reference(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      const found = reference(member, path === '' ? key : `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

const jsonLike = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(1, 0, -2.5, Infinity, -Infinity, 'text', true, null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('findNonFiniteNumber', () => {
  it('names the first non-finite number exactly as the plain definition does', () => {
    fc.assert(
      fc.property(jsonLike, (value) => {
        expect(findNonFiniteNumber(value)).toBe(reference(value));
      }),
    );
  });

  it('spells paths in the param notation of error bodies', () => {
    expect(findNonFiniteNumber(JSON.parse('{"messages":[{"content":"x"},{"x":[1,2,1e309]}]}'))).toBe('messages[1].x[2]');
    expect(findNonFiniteNumber({ a: { b: 1 }, temperature: -Infinity })).toBe('temperature');
    expect(findNonFiniteNumber([Infinity])).toBe('[0]');
    expect(findNonFiniteNumber(Infinity)).toBe('');
    expect(findNonFiniteNumber({ model: 'router/frontier', max_tokens: 128, messages: [] })).toBeUndefined();
  });
});
