import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeReturnPath } from '../../../src/app/return-to.js';

describe('the page sign-in returns to', () => {
  it('keeps a path of the app with its query', () => {
    expect(safeReturnPath('/app', '/app/billing')).toBe('/app/billing');
    expect(safeReturnPath('/app', '/app/usage?by=key&tz=Europe%2FBerlin')).toBe('/app/usage?by=key&tz=Europe%2FBerlin');
  });

  it('refuses anything that could leave the app', () => {
    for (const value of ['//evil.example/app/keys', '/\\evil.example', 'https://evil.example/app/keys', 'javascript:alert(1)', '/pricing', '/app/signin', '/app/../admin', '/app\t/keys', '', 42, null]) {
      expect(safeReturnPath('/app', value), String(value)).toBeNull();
    }
  });

  it('never returns a value that resolves outside this origin or outside the app', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.string().map((tail) => `/app/${tail}`), fc.string().map((tail) => `//${tail}`)), (value) => {
        const path = safeReturnPath('/app', value);
        if (path === null) return;
        const resolved = new URL(path, 'https://router.example');
        expect(resolved.origin).toBe('https://router.example');
        expect(resolved.pathname.startsWith('/app/') || resolved.pathname === '/app').toBe(true);
      }),
    );
  });
});
