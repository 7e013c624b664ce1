import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashPassword, passwordProblem, verifyPassword } from '../../../src/app/password-hashing.js';
import { owaspPasswordHashes } from '../../support/cheap-password-hashing.js';

// The hash as production writes it (the other test files hash cheaply: test/support/vitest-setup.ts).
owaspPasswordHashes();

describe('password hashing', () => {
  it('stores scrypt with OWASP parameters and a random salt alongside the hash, and verifies only the right password', async () => {
    const first = await hashPassword('correct horse battery staple');
    const second = await hashPassword('correct horse battery staple');
    expect(first).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword('correct horse battery staple', first)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', first)).toBe(false);
  });

  it('refuses anything that is not a hash it wrote, without throwing', async () => {
    const good = await hashPassword('a fine long password');
    const parts = good.split('$');
    const tampered = [
      '',
      'plain-text-password',
      good.replace('scrypt', 'bcrypt'),
      [...parts.slice(0, 5), parts[5]!.slice(0, 20)].join('$'),
      [parts[0], '0', ...parts.slice(2)].join('$'),
      [parts[0], String(2 ** 30), ...parts.slice(2)].join('$'),
    ];
    for (const encoded of tampered) expect(await verifyPassword('a fine long password', encoded), encoded).toBe(false);
  });

  it('requires 12 to 256 characters for a new password', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (password) => {
        const problem = passwordProblem(password);
        const repeated = /^(.)\1*$/su.test(password.toLowerCase());
        if (password.length < 12 || password.length > 256 || repeated) expect(problem).not.toBeNull();
        else if (problem !== null) expect(problem).toContain('common passwords');
      }),
    );
  });

  it('refuses the shipped common passwords in any letter case, and long passwords that are not on the list', () => {
    for (const common of ['password1234', 'QWERTY123456', '1q2w3e4r5t6y', 'PasswordPassword', 'aaaaaaaaaaaaaaa']) {
      expect(passwordProblem(common), common).toMatch(/list of common passwords/);
    }
    expect(passwordProblem('correct horse battery staple')).toBeNull();
    fc.assert(
      fc.property(fc.string({ minLength: 12, maxLength: 40 }).filter((value) => new Set(value).size > 3), (password) => {
        // Random strings of mixed characters are never on the list.
        fc.pre(!/^[a-z0-9]+$/i.test(password));
        expect(passwordProblem(password)).toBeNull();
      }),
    );
  });
});
