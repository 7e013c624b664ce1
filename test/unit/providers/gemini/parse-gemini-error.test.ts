import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createGeminiAdapter } from '../../../../src/providers/gemini/index.js';
import { nextPacificMidnight } from '../../../../src/providers/gemini/pacific-midnight.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const geminiAdapter = createGeminiAdapter({ clock: { now: () => NOW } });

const googleBody = (code: number, status: string, message: string, details?: unknown[]) =>
  JSON.stringify({ error: { code, message, status, ...(details ? { details } : {}) } }, null, 2);

const parse = (status: number, body: string, headers: Record<string, string> = {}) => geminiAdapter.parseError(status, body, new Headers(headers));

describe('Gemini errors → contract failures', () => {
  it('maps 429 RESOURCE_EXHAUSTED to rate_limit_exceeded with the RetryInfo delay', () => {
    const body = googleBody(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.', [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' },
    ]);
    expect(parse(429, body)).toEqual({
      status: 429,
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      message: 'You exceeded your current quota.',
      retryAfterSeconds: 30,
    });
  });

  it("maps a per-day QuotaFailure to insufficient_quota until Google's reset (Pacific midnight), with no Retry-After, whatever RetryInfo says", () => {
    const body = googleBody(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.', [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', quotaDimensions: { location: 'global', model: 'gemini-2.5-pro' }, quotaValue: '25' }],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '23s' },
    ]);
    // 2026-01-01T00:00Z is 16:00 on Dec 31 in Los Angeles (PST, UTC-8): the reset is 2026-01-01T08:00Z.
    expect(parse(429, body)).toEqual({
      status: 429,
      type: 'insufficient_quota',
      code: 'insufficient_quota',
      message: 'You exceeded your current quota, please check your plan and billing details.',
      quotaResetsAt: Date.parse('2026-01-01T08:00:00Z'),
    });
  });

  it('keeps a per-minute QuotaFailure a rate limit with its RetryInfo delay', () => {
    const body = googleBody(429, 'RESOURCE_EXHAUSTED', 'slow down', [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '41s' },
    ]);
    expect(parse(429, body)).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', retryAfterSeconds: 41 });
  });

  it('never throws on malformed details, and reads only well-formed ones', () => {
    fc.assert(
      fc.property(fc.anything(), (details) => {
        const failure = parse(429, JSON.stringify({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'x', details } }));
        expect(failure.status).toBe(429);
      }),
    );
  });

  it('keeps a fractional retryDelay as it is (the client is told whole seconds, rounded up, at the refusal)', () => {
    const body = googleBody(429, 'RESOURCE_EXHAUSTED', 'slow down', [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '27.2s' }]);
    expect(parse(429, body).retryAfterSeconds).toBe(27.2);
  });

  it('falls back to the Retry-After header when the body has no RetryInfo', () => {
    expect(parse(429, googleBody(429, 'RESOURCE_EXHAUSTED', 'slow down'), { 'retry-after': '9' }).retryAfterSeconds).toBe(9);
    expect(parse(429, googleBody(429, 'RESOURCE_EXHAUSTED', 'slow down'), { 'retry-after': 'Thu, 01 Jan 2026 00:00:12 GMT' }).retryAfterSeconds).toBe(12);
    expect(parse(429, googleBody(429, 'RESOURCE_EXHAUSTED', 'slow down')).retryAfterSeconds).toBeUndefined();
  });

  it('treats 400 API_KEY_INVALID as an authentication failure (401)', () => {
    const body = googleBody(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
    ]);
    expect(parse(400, body)).toEqual({
      status: 401,
      type: 'authentication_error',
      code: 'invalid_api_key',
      message: 'API key not valid. Please pass a valid API key.',
    });
  });

  it('recognises a context overflow 400', () => {
    const body = googleBody(400, 'INVALID_ARGUMENT', 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).');
    expect(parse(400, body)).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'context_length_exceeded' });
  });

  it.each([
    [400, 'INVALID_ARGUMENT', 'invalid_request_error', null],
    [401, 'UNAUTHENTICATED', 'authentication_error', 'invalid_api_key'],
    [403, 'PERMISSION_DENIED', 'permission_error', 'permission_denied'],
    [404, 'NOT_FOUND', 'not_found_error', 'model_not_found'],
    [500, 'INTERNAL', 'server_error', null],
    [503, 'UNAVAILABLE', 'server_error', 'overloaded'],
    [504, 'DEADLINE_EXCEEDED', 'server_error', 'timeout'],
  ] as const)('maps %i %s', (status, rpcStatus, type, code) => {
    expect(parse(status, googleBody(status, rpcStatus, 'provider says no'))).toEqual({ status, type, code, message: 'provider says no' });
  });

  it('passes the Retry-After header of a 503 on', () => {
    expect(parse(503, googleBody(503, 'UNAVAILABLE', 'overloaded'), { 'retry-after': '4' }).retryAfterSeconds).toBe(4);
  });

  it('does not echo an HTML 502 page', () => {
    const failure = parse(502, '<!DOCTYPE html><html><title>Error 502 (Server Error)!!1</title></html>');
    expect(failure).toEqual({ status: 502, type: 'server_error', code: null, message: 'Gemini returned HTTP 502.' });
  });

  it('survives empty bodies, non-object JSON and array-wrapped errors', () => {
    expect(parse(500, '')).toEqual({ status: 500, type: 'server_error', code: null, message: 'Gemini returned HTTP 500.' });
    expect(parse(418, 'null')).toEqual({ status: 418, type: 'invalid_request_error', code: null, message: 'Gemini returned HTTP 418.' });
    expect(parse(503, `[${googleBody(503, 'UNAVAILABLE', 'busy')}]`)).toMatchObject({ code: 'overloaded', message: 'busy' });
  });
});

describe('nextPacificMidnight', () => {
  const pacific = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hourCycle: 'h23', hour: 'numeric', minute: 'numeric', second: 'numeric' });

  it('is the first instant after now that is 00:00:00 in Los Angeles, within 25 hours, daylight saving time included', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') }), (now) => {
        const reset = nextPacificMidnight(now);
        expect(reset).toBeGreaterThan(now);
        expect(reset - now).toBeLessThanOrEqual(25 * 3_600_000);
        expect(pacific.format(reset)).toBe('00:00:00');
        // No earlier whole hour after now is a Pacific midnight.
        for (let hour = Math.ceil(now / 3_600_000) * 3_600_000; hour < reset; hour += 3_600_000) expect(pacific.format(hour)).not.toBe('00:00:00');
      }),
      { numRuns: 200 },
    );
    expect(nextPacificMidnight(Date.parse('2026-07-01T06:59:59Z'))).toBe(Date.parse('2026-07-01T07:00:00Z'));
    expect(nextPacificMidnight(Date.parse('2026-07-01T07:00:00Z'))).toBe(Date.parse('2026-07-02T07:00:00Z'));
  });
});
