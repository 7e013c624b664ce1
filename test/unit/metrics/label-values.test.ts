import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../../src/core/errors.js';
import { attemptOutcomeLabel, codeLabel, endpointLabel, knownLabel, statusClassLabel } from '../../../src/metrics/label-values.js';

const LABEL = /^[a-z0-9_/.x-]+$/;

describe('metric label values', () => {
  it('maps whatever a client or upstream sends onto a closed set', () => {
    const codes = new Set([...Object.keys(ERROR_TABLE), 'upstream_stream_interrupted', 'upstream_error', 'none']);
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string()), fc.integer(), (path, code, status) => {
        expect(['/v1/chat/completions', '/v1/responses', '/v1/models', 'other']).toContain(endpointLabel(path));
        expect(codes.has(codeLabel(code))).toBe(true);
        expect(statusClassLabel(status)).toMatch(/^([1-5]xx|other)$/);
        expect(knownLabel(code, new Set(['openai']))).toMatch(/^(openai|other|none)$/);
      }),
    );
  });

  it('names attempt outcomes by status, transport reason or circuit', () => {
    const attempt = { provider: 'openai', model: 'm', latencyMs: 1 };
    expect(attemptOutcomeLabel({ ...attempt, status: 200, error: null })).toBe('ok');
    expect(attemptOutcomeLabel({ ...attempt, status: 503, error: 'overloaded' })).toBe('http_503');
    expect(attemptOutcomeLabel({ ...attempt, status: null, error: 'first_byte_timeout' })).toBe('first_byte_timeout');
    expect(attemptOutcomeLabel({ ...attempt, status: null, error: 'circuit_open' })).toBe('circuit_open');
    expect(attemptOutcomeLabel({ ...attempt, status: null, error: 'credential_rejected' })).toBe('credential_rejected');
    expect(attemptOutcomeLabel({ ...attempt, status: null, error: 'credential_throttled' })).toBe('credential_throttled');
    expect(attemptOutcomeLabel({ ...attempt, status: null, error: 'acct_123 said no' })).toBe('no_response');
    expect(endpointLabel('/v1/models/router/frontier')).toBe('/v1/models');
    expect(codeLabel('sk_router_abc')).toBe('upstream_error');
    expect(LABEL.test(codeLabel('spend_cap_reached'))).toBe(true);
  });
});
