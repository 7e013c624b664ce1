import { describe, expect, it } from 'vitest';
import { parseError as parseAt } from '../../../../src/providers/openai/parse-error.js';

const noHeaders = new Headers();
const NOW = Date.parse('2026-01-01T00:00:00Z');
const parseError = (status: number, body: string, headers: Headers) => parseAt(status, body, headers, NOW);

describe('parseError', () => {
  it('passes an OpenAI error body through with its status', () => {
    const body = JSON.stringify({
      error: { message: "This model's maximum context length is 128000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' },
    });
    expect(parseError(400, body, noHeaders)).toEqual({
      status: 400,
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      message: "This model's maximum context length is 128000 tokens.",
      param: 'messages',
    });
  });

  it('recognises 429 insufficient_quota as a quota failure, not a rate limit', () => {
    const body = JSON.stringify({ error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } });
    expect(parseError(429, body, noHeaders)).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota' });
  });

  it('maps a 429 rate limit with OpenAI\'s "requests" type and reads retry-after seconds', () => {
    const body = JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    const failure = parseError(429, body, new Headers({ 'retry-after': '20' }));
    expect(failure).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', retryAfterSeconds: 20 });
  });

  it('prefers retry-after-ms over retry-after and reads HTTP dates against the clock', () => {
    expect(parseError(429, '', new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' })).retryAfterSeconds).toBe(1.5);
    expect(parseError(429, '', new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:42 GMT' })).retryAfterSeconds).toBe(42);
    expect(parseError(429, '', new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' })).retryAfterSeconds).toBe(0);
  });

  it('turns an HTML proxy page into a generic message with the status, never echoing the body', () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body>cloudflare secret-ish</body></html>';
    expect(parseError(502, html, noHeaders)).toEqual({
      status: 502,
      type: 'server_error',
      code: null,
      message: 'The upstream provider answered HTTP 502 without a readable error.',
      param: null,
    });
    expect(parseError(504, '', noHeaders)).toMatchObject({ code: 'timeout', type: 'server_error' });
  });

  it('reads quirk(ollama) string errors and quirk(mistral, vllm) top-level messages', () => {
    expect(parseError(404, '{"error":"model \\"llama9\\" not found"}', noHeaders)).toMatchObject({
      status: 404,
      type: 'not_found_error',
      message: 'model "llama9" not found',
    });
    const vllm = JSON.stringify({ object: 'error', message: 'max_tokens too large', type: 'BadRequestError', param: null, code: 400 });
    expect(parseError(400, vllm, noHeaders)).toEqual({ status: 400, type: 'invalid_request_error', code: null, message: 'max_tokens too large', param: null });
  });

  it('redacts key-shaped tokens that a 401 message quotes', () => {
    const body = JSON.stringify({ error: { message: 'Incorrect API key provided: sk-proj-abc***wxyz. See docs.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    expect(parseError(401, body, noHeaders)).toMatchObject({ status: 401, type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: [redacted]. See docs.' });
  });

  it('truncates very long messages', () => {
    const body = JSON.stringify({ error: { message: 'x'.repeat(2000) } });
    expect(parseError(500, body, noHeaders).message).toBe(`${'x'.repeat(500)}…`);
  });

  it('falls back to the generic message for JSON without a message', () => {
    expect(parseError(503, '{"status":"down"}', noHeaders)).toMatchObject({ status: 503, code: 'overloaded', message: 'The upstream provider answered HTTP 503 without a readable error.' });
  });

  it("reads a 429's wait from x-ratelimit-reset-* when it has no Retry-After, and only a 429's", () => {
    const body = JSON.stringify({ error: { message: 'Rate limit reached for gpt-4.1 on tokens per min (TPM).', type: 'tokens', param: null, code: 'rate_limit_exceeded' } });
    const headers = new Headers({ 'x-ratelimit-remaining-requests': '499', 'x-ratelimit-reset-requests': '120ms', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0s' });
    expect(parseError(429, body, headers).retryAfterSeconds).toBe(360);
    expect(parseError(503, body, headers).retryAfterSeconds).toBeUndefined();
    expect(parseError(429, body, new Headers({ 'x-ratelimit-reset-requests': '20ms' })).retryAfterSeconds).toBeCloseTo(0.02, 9);
  });
});
