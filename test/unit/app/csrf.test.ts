import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptedOrigins } from '../../../src/app/csrf.js';

describe('the origins a form may be posted from', () => {
  it('accepts every loopback name of a loopback appUrl, with its scheme and port', () => {
    expect(acceptedOrigins('http://localhost:8787')).toEqual(['http://localhost:8787', 'http://127.0.0.1:8787', 'http://[::1]:8787']);
    expect(acceptedOrigins('http://127.0.0.1:9000')).toEqual(['http://localhost:9000', 'http://127.0.0.1:9000', 'http://[::1]:9000']);
    expect(acceptedOrigins('https://localhost')).toEqual(['https://localhost', 'https://127.0.0.1', 'https://[::1]']);
  });

  it('accepts exactly its own origin for any other host', () => {
    const host = fc.domain().filter((name) => name !== 'localhost');
    fc.assert(
      fc.property(host, fc.constantFrom('http', 'https'), fc.integer({ min: 1, max: 65535 }), (name, scheme, port) => {
        const origin = new URL(`${scheme}://${name}:${port}`).origin;
        expect(acceptedOrigins(origin)).toEqual([origin]);
      }),
    );
    // Names that merely contain a loopback name are other sites.
    for (const origin of ['http://localhost.evil.example:8787', 'http://127.0.0.1.nip.io:8787']) expect(acceptedOrigins(origin)).toEqual([origin]);
  });
});
