import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointOf } from '../../../src/http/request-outcome.js';

const ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens', '/v1/embeddings', '/v1/rerank', '/v1/models', '/v1/generation'];

describe('endpointOf: the endpoint as a template, never the client\'s own path text', () => {
  it('names a known endpoint, with or without a query string and trailing slashes', () => {
    for (const endpoint of ENDPOINTS) {
      expect(endpointOf(endpoint)).toBe(endpoint);
      expect(endpointOf(`${endpoint}?id=gen_1&x=y`)).toBe(endpoint);
      expect(endpointOf(`${endpoint}//`)).toBe(endpoint);
    }
  });

  it('templates a model id and folds every other path into /v1/*', () => {
    expect(endpointOf('/v1/models/openai/gpt-4.1')).toBe('/v1/models/{id}');
    expect(endpointOf('/v1/chat/completionsX')).toBe('/v1/*');
    expect(endpointOf('/v1/secret-looking/sk_router_abc')).toBe('/v1/*');
  });

  it('answers one of a closed set of names for any path (property)', () => {
    const names = new Set([...ENDPOINTS, '/v1/models/{id}', '/v1/*']);
    fc.assert(fc.property(fc.string(), (tail) => names.has(endpointOf(`/v1/${tail}`))));
  });
});
