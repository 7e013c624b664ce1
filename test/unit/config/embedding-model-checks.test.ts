/**
 * `router check` on embedding and rerank models: an embedding model says how long its vectors are, only
 * an embedding model does, and every endpoint of either kind names a provider that serves the endpoint
 * (a provider without embeddings is never a candidate, and the operator hears of it before start).
 */
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/check-config.js';
import { writeConfigVariant } from './config-variant.js';

function appendModels(models: string) {
  return (text: string) => `${text.trimEnd()}\nconcreteModels:\n${models}\n`;
}

const messagesOf = (models: string) => checkConfig(writeConfigVariant({ 'catalog.yaml': appendModels(models) }), {}).problems.map((problem) => problem.message);

describe('embedding and rerank models in router check', () => {
  it('accepts an embedding model on a provider that serves embeddings', () => {
    const dir = writeConfigVariant({
      'catalog.yaml': appendModels('  - { id: openai/te3, name: TE3, kind: embedding, embedding: { dimensions: 1536 }, contextLength: 8191, created: 1, endpoints: [{ provider: openai, model: te3 }] }'),
      'providers.yaml': (text) => text.replace('    format: openai\n', '    format: openai\n    embeddings: true\n'),
    });
    expect(checkConfig(dir, {}).problems).toEqual([]);
  });

  it('refuses endpoints on providers that do not serve the endpoint, and dimensions on the wrong kind or missing', () => {
    expect(messagesOf('  - { id: anthropic/e, name: E, kind: embedding, embedding: { dimensions: 8 }, contextLength: 1, created: 1, endpoints: [{ provider: anthropic, model: e }] }')).toEqual([
      'embedding model "anthropic/e" names provider "anthropic", which does not serve embeddings (set embeddings: true on the provider if it does)',
    ]);
    expect(messagesOf('  - { id: openai/r, name: R, kind: rerank, contextLength: 1, created: 1, endpoints: [{ provider: openai, model: r }] }')).toEqual([
      'rerank model "openai/r" names provider "openai", which does not serve rerank (set rerank: true on the provider if it does)',
    ]);
    expect(messagesOf('  - { id: openai/c, name: C, embedding: { dimensions: 8 }, contextLength: 1, created: 1, endpoints: [{ provider: openai, model: c }] }')).toEqual([
      'concrete model "openai/c" has embedding dimensions but is not kind: embedding',
    ]);
    expect(messagesOf('  - { id: gemini/e, name: E, kind: embedding, contextLength: 1, created: 1, endpoints: [{ provider: gemini, model: e }] }')).toContain(
      'embedding model "gemini/e" needs embedding.dimensions (the length of its vectors)',
    );
  });
});
