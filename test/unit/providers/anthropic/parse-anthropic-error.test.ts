import { describe, expect, it } from 'vitest';
import { createAnthropicAdapter } from '../../../../src/providers/anthropic/index.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const adapter = createAnthropicAdapter({ now: () => NOW });

function anthropicError(type: string, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'error', error: { type, message, ...extra }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' });
}

describe('parseError', () => {
  it.each([
    [400, anthropicError('invalid_request_error', 'max_tokens: Field required'), { status: 400, type: 'invalid_request_error', code: null }],
    [400, anthropicError('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'), { status: 400, type: 'invalid_request_error', code: 'context_length_exceeded' }],
    [401, anthropicError('authentication_error', 'invalid x-api-key'), { status: 401, type: 'authentication_error', code: 'invalid_api_key' }],
    [402, anthropicError('billing_error', 'Payment required'), { status: 402, type: 'insufficient_quota', code: 'insufficient_quota' }],
    [403, anthropicError('permission_error', 'Not allowed'), { status: 403, type: 'permission_error', code: null }],
    [404, anthropicError('not_found_error', 'model: claude-x'), { status: 404, type: 'not_found_error', code: 'model_not_found' }],
    [413, anthropicError('request_too_large', 'Request exceeds the maximum size'), { status: 413, type: 'invalid_request_error', code: 'request_too_large' }],
    [500, anthropicError('api_error', 'Internal server error'), { status: 500, type: 'server_error', code: null }],
    [504, anthropicError('timeout_error', 'Request timeout'), { status: 504, type: 'server_error', code: 'timeout' }],
    [529, anthropicError('overloaded_error', 'Overloaded'), { status: 503, type: 'server_error', code: 'overloaded' }],
  ])('maps HTTP %i to the contract terms', (status, body, expected) => {
    const failure = adapter.parseError(status, body, new Headers());
    expect({ status: failure.status, type: failure.type, code: failure.code }).toEqual(expected);
    expect(failure.message).toBe((JSON.parse(body) as { error: { message: string } }).error.message);
    expect(failure.retryAfterSeconds).toBeUndefined();
  });

  it('reads retry-after on a 429 rate limit, in seconds or as an HTTP date', () => {
    const body = anthropicError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit');
    expect(adapter.parseError(429, body, new Headers({ 'retry-after': '17' }))).toEqual({
      status: 429,
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      message: 'Number of request tokens has exceeded your per-minute rate limit',
      retryAfterSeconds: 17,
    });
    const dated = adapter.parseError(429, body, new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }));
    expect(dated.retryAfterSeconds).toBe(30);
    expect(adapter.parseError(429, body, new Headers({ 'retry-after': 'soon' })).retryAfterSeconds).toBeUndefined();
  });

  it('keeps retry-after on an overloaded 529', () => {
    const failure = adapter.parseError(529, anthropicError('overloaded_error', 'Overloaded'), new Headers({ 'retry-after': '5' }));
    expect([failure.status, failure.code, failure.retryAfterSeconds]).toEqual([503, 'overloaded', 5]);
  });

  it('treats an exhausted spend limit as insufficient quota, without a retry hint', () => {
    const body = anthropicError('rate_limit_error', 'You have reached your specified API usage limits.', {
      details: { error_code: 'enforced_spend_limit_reached' },
    });
    expect(adapter.parseError(429, body, new Headers({ 'retry-after': '60' }))).toEqual({
      status: 429,
      type: 'insufficient_quota',
      code: 'insufficient_quota',
      message: 'You have reached your specified API usage limits.',
    });
  });

  it('handles bodies that are not Anthropic JSON without throwing or echoing them', () => {
    const html = adapter.parseError(502, '<html><body>Bad Gateway</body></html>', new Headers());
    expect(html).toEqual({ status: 502, type: 'server_error', code: null, message: 'Anthropic failed with HTTP 502.' });
    expect(adapter.parseError(503, '', new Headers()).type).toBe('server_error');
    expect(adapter.parseError(400, 'null', new Headers()).message).toBe('Anthropic failed with HTTP 400.');
    expect(adapter.parseError(418, '{"error":{"type":7}}', new Headers())).toEqual({
      status: 418,
      type: 'invalid_request_error',
      code: null,
      message: 'Anthropic failed with HTTP 418.',
    });
  });

  it("reads a 429's wait from anthropic-ratelimit-*-reset when it has no Retry-After", () => {
    const headers = new Headers({
      'anthropic-ratelimit-requests-remaining': '12',
      'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:01Z',
      'anthropic-ratelimit-input-tokens-remaining': '0',
      'anthropic-ratelimit-input-tokens-reset': '2026-01-01T00:00:45Z',
    });
    expect(adapter.parseError(429, anthropicError('rate_limit_error', 'Number of input tokens has exceeded your per-minute rate limit'), headers).retryAfterSeconds).toBe(45);
  });
});
