import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { credentialTestVerdict, describeCredentialTest } from '../../../src/app/credential-test-verdict.js';
import type { CredentialTestOutcome } from '../../../src/routing/test-credential.js';

const unreached = (reason: string, code?: string): CredentialTestOutcome => ({ ok: false, status: null, reason, unreached: { code } });

describe('the provider-key Test verdict', () => {
  it('calls every network failure unreached, naming it, and says the key was not checked', () => {
    const cases: Array<[CredentialTestOutcome, string]> = [
      [unreached('connection_error', 'ENOTFOUND'), 'its host name did not resolve'],
      [unreached('connection_error', 'ECONNREFUSED'), 'the connection was refused'],
      [unreached('connection_error', 'CERT_HAS_EXPIRED'), 'the TLS handshake failed'],
      [unreached('connection_error', 'ERR_TLS_CERT_ALTNAME_INVALID'), 'the TLS handshake failed'],
      [unreached('connect_timeout'), 'the connection timed out'],
      [unreached('first_byte_timeout'), 'no answer in time'],
      [unreached('aborted'), 'no answer in time'],
      [unreached('connection_error'), 'the connection failed'],
    ];
    for (const [outcome, words] of cases) {
      const { verdict, text } = describeCredentialTest('OpenAI', outcome);
      expect(verdict).toBe('unreached');
      expect(text).toContain(`Could not reach OpenAI (${words}), so the key was not checked.`);
    }
  });

  it('calls 401 and 403 rejected, and no other status', () => {
    expect(credentialTestVerdict({ ok: false, status: 401, reason: 'invalid_api_key' })).toBe('rejected');
    expect(credentialTestVerdict({ ok: false, status: 403, reason: 'permission_error' })).toBe('rejected');
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }).filter((status) => status !== 401 && status !== 403), (status) => {
        expect(credentialTestVerdict({ ok: false, status, reason: 'x' })).toBe('upstream_error');
        expect(describeCredentialTest('Anthropic', { ok: false, status, reason: 'x' }).text).toContain(`Anthropic answered HTTP ${status} (x) without judging the key`);
      }),
    );
  });

  it('gives 402, 429 and 5xx their own advice', () => {
    expect(describeCredentialTest('OpenAI', { ok: false, status: 402, reason: 'billing_error' }).text).toContain('no credit');
    expect(describeCredentialTest('OpenAI', { ok: false, status: 429, reason: 'rate_limit_exceeded' }).text).toContain('rate-limiting');
    expect(describeCredentialTest('OpenAI', { ok: false, status: 529, reason: 'overloaded_error' }).text).toContain('having trouble');
  });

  it('calls a success accepted, and a call the router could not make (no status, not a network failure) unchecked', () => {
    expect(describeCredentialTest('OpenAI', { ok: true, latencyMs: 12, model: 'gpt-4.1' })).toEqual({ verdict: 'accepted', text: 'OpenAI accepted the key: a one-token call to gpt-4.1 succeeded in 12 ms.' });
    const refused = describeCredentialTest('OpenAI', { ok: false, status: null, reason: 'unsupported_parameter' });
    expect(refused.verdict).toBe('upstream_error');
    expect(refused.text).toContain('could not be made (unsupported_parameter); the key was not checked');
  });
});
