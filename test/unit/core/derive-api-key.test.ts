import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_KEY_LENGTH, deriveApiKey, isWellFormedApiKey } from '../../../src/core/api-key.js';

describe('deriveApiKey', () => {
  it('is a well-formed key, the same for the same secret and label, another for another of either (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), fc.string({ minLength: 1 }), fc.string(), (secret, label, otherSecret, otherLabel) => {
        const key = deriveApiKey(secret, label);
        expect(key).toHaveLength(API_KEY_LENGTH);
        expect(isWellFormedApiKey(key)).toBe(true);
        expect(deriveApiKey(secret, label)).toBe(key);
        if (otherLabel !== label) expect(deriveApiKey(secret, otherLabel)).not.toBe(key);
        if (otherSecret !== secret) expect(deriveApiKey(otherSecret, label)).not.toBe(key);
      }),
      { numRuns: 300 },
    );
  });
});
