import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EMAIL_LENGTH, parseEmailAddress } from '../../../src/core/email-address.js';

/** Plain mailboxes: fast-check's RFC addresses, within the path length SMTP allows. */
const plain = fc.emailAddress().filter((email) => email.length <= MAX_EMAIL_LENGTH && email.split('@')[0]!.length <= 64 && /\.[a-z]{2,}$/.test(email));
const name = fc.string({ minLength: 0, maxLength: 20 });

/** Every way address syntax turns one typed string into another recipient, or several. */
const listSyntax = fc.oneof(
  fc.tuple(name, plain).map(([n, a]) => `${n}<${a}>`),
  fc.tuple(name, plain).map(([n, a]) => `"${n}" <${a}>`),
  fc.tuple(plain, plain).map(([a, b]) => `${a},${b}`),
  fc.tuple(plain, plain).map(([a, b]) => `${a};${b}`),
  fc.tuple(plain, plain).map(([a, b]) => `${a} ${b}`),
  fc.tuple(name, plain).map(([n, a]) => `${n.replace(/[:;]/g, '') || 'g'}:${a};`),
  fc.tuple(plain, name).map(([a, n]) => `${a} (${n})`),
  fc.tuple(plain, name).map(([a, n]) => `(${n})${a}`),
  fc.tuple(name, plain).map(([n, a]) => `"${n}"@${a.split('@')[1]}`),
  fc.tuple(plain, fc.constantFrom('\n', '\r\n', '\t', '\0')).map(([a, c]) => `${a}${c}bcc: x@example.org`),
  fc.tuple(plain, plain).map(([a, b]) => `${a}@${b}`),
  fc.tuple(plain, plain).map(([a, b]) => `${a.split('@')[0]}@[${b}]`),
  plain.map((a) => a.split('@')[0]!),
  plain.map((a) => `${a.split('@')[0]}@localhost`),
  plain.map((a) => `${a.split('@')[0]}@127.0.0.1`),
);

describe('parseEmailAddress', () => {
  it('accepts plain addresses, trimmed and lower-cased', () => {
    fc.assert(fc.property(plain, (email) => {
      expect(parseEmailAddress(` ${email.toUpperCase()} `)).toBe(email.toLowerCase());
    }), { numRuns: 500 });
  });

  it('refuses every address-list, display-name, group, quote and comment variant', () => {
    fc.assert(fc.property(listSyntax, (typed) => {
      expect(parseEmailAddress(typed)).toBeNull();
    }), { numRuns: 2000 });
  });

  it('refuses the issue’s own examples and the edges', () => {
    for (const typed of ['x<you@example.org>', 'x,you@example.org', 'g:you@example.org;', 'you', 'you@example', '.you@example.org', 'you.@example.org', 'a..b@example.org', 'you@-example.org', 'you@example.org.', 'jérôme@example.org', `${'a'.repeat(65)}@example.org`, `a@${'b'.repeat(250)}.org`, '']) {
      expect(parseEmailAddress(typed), typed).toBeNull();
    }
    expect(parseEmailAddress('Ada.Lovelace+router@Example.co.uk')).toBe('ada.lovelace+router@example.co.uk');
    expect(parseEmailAddress("o'brien@xn--bcher-kva.example")).toBe("o'brien@xn--bcher-kva.example");
  });
});
