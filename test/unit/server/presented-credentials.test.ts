/**
 * What a request presents as its credential and its Host, read from the raw header list: any number of
 * Authorization, x-api-key and Host lines, in any case and order, among other headers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostRefusal } from '../../../src/http/answer-client-errors.js';
import { isHeaderName } from '../../../src/http/is-header-name.js';
import { presentedAuthorization } from '../../../src/http/stages/authenticate.js';
import { RouterError } from '../../../src/core/errors.js';

const KEYS = ['sk_router_aaaa', 'sk_router_bbbb', 'garbage'];
const casing = (name: string) => fc.constantFrom(name, name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1));
const other = fc.tuple(fc.constantFrom('User-Agent', 'Accept', 'X-Authorization', 'Api-Key', 'X-Api-Keys', 'Hosts'), fc.constantFrom(...KEYS));
const header = fc.oneof(
  fc.tuple(casing('authorization'), fc.constantFrom(...KEYS).map((key) => `Bearer ${key}`)),
  fc.tuple(casing('x-api-key'), fc.constantFrom(...KEYS, '', ' ')),
  other,
);

function outcome(raw: string[]): { value: string | undefined } | { refused: string | null } {
  try {
    return { value: presentedAuthorization(raw) };
  } catch (error) {
    if (!(error instanceof RouterError) || error.code !== 'invalid_request') throw error;
    return { refused: error.param };
  }
}

describe('presentedAuthorization', () => {
  it('refuses exactly two credentials that could disagree, and otherwise presents the one sent', () => {
    fc.assert(
      fc.property(fc.array(header, { maxLength: 8 }), (pairs) => {
        const raw = pairs.flat();
        const named = (name: string) => pairs.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
        const authorizations = named('authorization');
        const apiKeys = named('x-api-key');
        const apiKey = apiKeys[0]?.trim();
        expect(outcome(raw)).toEqual(expected());
        function expected() {
          if (authorizations.length > 1) return { refused: 'authorization' };
          if (apiKeys.length > 1) return { refused: 'x-api-key' };
          if (!apiKey) return { value: authorizations[0] };
          if (authorizations.length === 0) return { value: `Bearer ${apiKey}` };
          return authorizations[0] === `Bearer ${apiKey}` ? { value: authorizations[0] } : { refused: 'x-api-key' };
        }
      }),
    );
  });

  it('never puts a presented key in its refusal', () => {
    const key = 'sk_router_Zq9secretsecretsecretsecretsecretsec';
    for (const raw of [['authorization', `Bearer ${key}`, 'Authorization', 'Bearer x'], ['x-api-key', key, 'authorization', 'Bearer y']]) {
      expect(() => presentedAuthorization(raw)).toThrow(RouterError);
      try {
        presentedAuthorization(raw);
      } catch (error) {
        expect(JSON.stringify(error) + (error as Error).message).not.toContain('secret');
      }
    }
  });
});

describe('hostRefusal', () => {
  const request = (major: number, minor: number, raw: string[]) => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < raw.length; i += 2) headers[raw[i]!.toLowerCase()] ??= raw[i + 1]!;
    return { httpVersionMajor: major, httpVersionMinor: minor, headers, rawHeaders: raw };
  };

  it('accepts exactly one Host on HTTP/1.1, none or one on HTTP/1.0, and never two', () => {
    const line = fc.oneof(fc.tuple(casing('host'), fc.constant('a.example')), fc.tuple(fc.constantFrom('Hostname', 'X-Host', 'Accept'), fc.constant('x')));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), fc.constantFrom<[number, number]>([1, 1], [1, 0]), (pairs, [major, minor]) => {
        const hosts = pairs.filter(([name]) => name.toLowerCase() === 'host').length;
        const refused = hostRefusal(request(major, minor, pairs.flat()));
        const allowed = hosts === 1 || (hosts === 0 && minor === 0);
        expect(refused === undefined).toBe(allowed);
        if (refused) expect(refused).toMatchObject({ code: 'invalid_request', status: 400 });
      }),
    );
  });
});

describe('isHeaderName', () => {
  it('is toLowerCase equality, whatever the spelling', () => {
    const spelling = fc.constantFrom('host', 'authorization', 'x-api-key').chain((name) =>
      fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
    );
    fc.assert(
      fc.property(fc.oneof(spelling, fc.string({ maxLength: 14 })), fc.constantFrom(['host', 'Host'], ['authorization', 'Authorization'], ['x-api-key', 'X-Api-Key']), (name, [lower, usual]) => {
        expect(isHeaderName(name, lower!, usual!)).toBe(name.toLowerCase() === lower);
      }),
    );
  });
});
