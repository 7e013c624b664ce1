import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from '../../../src/core/secret-box.js';

const SECRET = 'server-secret-for-tests';
const CREDENTIAL = 'sk-proj-provider-credential-1234';

describe('secret box', () => {
  it('round-trips a credential and never shows it in the sealed form', () => {
    const sealed = sealSecret(CREDENTIAL, SECRET);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(CREDENTIAL);
    expect(openSecret(sealed, SECRET)).toBe(CREDENTIAL);
  });

  it('uses a fresh IV for every seal', () => {
    expect(sealSecret(CREDENTIAL, SECRET)).not.toBe(sealSecret(CREDENTIAL, SECRET));
  });

  it('refuses to open with another secret key', () => {
    expect(() => openSecret(sealSecret(CREDENTIAL, SECRET), 'another-secret')).toThrow('wrong secret key or altered value');
  });

  it('detects tampering with the ciphertext, the tag or the IV', () => {
    const [version, iv, tag, ciphertext] = sealSecret(CREDENTIAL, SECRET).split('.') as [string, string, string, string];
    const flip = (part: string): string => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64url');
    };
    for (const altered of [[version, iv, tag, flip(ciphertext)], [version, iv, flip(tag), ciphertext], [version, flip(iv), tag, ciphertext]]) {
      expect(() => openSecret(altered.join('.'), SECRET)).toThrow('wrong secret key or altered value');
    }
  });

  it('rejects malformed values, including a shortened tag', () => {
    const [version, iv, tag, ciphertext] = sealSecret(CREDENTIAL, SECRET).split('.') as [string, string, string, string];
    const shortTag = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    for (const malformed of ['', 'v1.a.b', `v2.${iv}.${tag}.${ciphertext}`, `${version}.${iv}.${shortTag}.${ciphertext}`, `${version}.${iv}.${tag}.${ciphertext}.x`]) {
      expect(() => openSecret(malformed, SECRET)).toThrow('sealed secret is malformed');
    }
  });

  it('refuses an empty secret key', () => {
    expect(() => sealSecret(CREDENTIAL, '')).toThrow('non-empty secret key');
  });
});
