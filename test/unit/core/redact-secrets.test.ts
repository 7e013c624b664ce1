import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactKeyLikeTokens, secretRedactor } from '../../../src/core/redact-secrets.js';

describe('secretRedactor', () => {
  it('removes the exact value in every form it may be quoted in, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 40 }), fc.string(), fc.string(), (secret, before, after) => {
        const redact = secretRedactor([secret]);
        for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]) {
          expect(redact(`${before}${form}${after}`)).not.toContain(secret);
        }
        expect(JSON.parse(redact(JSON.stringify({ message: `${before}${secret}${after}` })))).toBeTruthy();
      }),
    );
  });

  it('leaves text without the secret as it is, and ignores values too short to be credentials', () => {
    expect(secretRedactor(['sk-test-1234'])('nothing here')).toBe('nothing here');
    expect(secretRedactor(['abc'])('abc abc')).toBe('abc abc');
    expect(secretRedactor(['a/b+c=d1234'])(`x Bearer%20a%2Fb%2Bc%3Dd1234 y`)).toBe(`x Bearer%20${REDACTED} y`);
  });
});

describe('redactKeyLikeTokens', () => {
  it.each([
    ['Incorrect API key provided: sk-proj-abcDEF123456.', `Incorrect API key provided: ${REDACTED}.`],
    ['Authorization: Bearer%20sk-abcdef123456', `Authorization: Bearer%20${REDACTED}`],
    ['key=AIzaSyA1b2C3d4E5f6G7h8', `key=${REDACTED}`],
    ['x-api-key sk-ant-api03-abcdefgh', `x-api-key ${REDACTED}`],
    ['gsk_abcdef123 and xai-abcdef123', `${REDACTED} and ${REDACTED}`],
  ])('%s', (input, expected) => {
    expect(redactKeyLikeTokens(input)).toBe(expected);
  });

  it('leaves words that merely contain the prefixes alone', () => {
    expect(redactKeyLikeTokens('task-force risk_assessment desk-lamp')).toBe('task-force risk_assessment desk-lamp');
  });
});
