/**
 * The embeddings and rerank request readers and their translations, over open-ended inputs (fast-check):
 * every body the schema lets through either becomes the call routing makes, with every input in order,
 * or is refused with the contract's 400 naming the field; never another exception. The translations to
 * OpenAI's /embeddings and Gemini's batchEmbedContents carry every input once, and answers come back in
 * input order however a host orders them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../src/config/types.js';
import { RouterError } from '../../../src/core/errors.js';
import { createBodyValidator } from '../../../src/http/stages/read-json-body.js';
import { EMBEDDING_BOUNDS, RERANK_BOUNDS, readEmbeddingCall, readRerankCall } from '../../../src/http/embeddings-request.js';
import { base64Vector, expectedDimensions } from '../../../src/http/routes/embeddings.js';
import { embeddingsRequestSchema, rerankRequestSchema } from '../../../src/formats/embeddings.js';
import { geminiEmbeddings, geminiTaskType } from '../../../src/providers/gemini/embeddings.js';
import { openaiEmbeddings, openaiRerank } from '../../../src/providers/openai/embeddings.js';
import type { AdapterContext } from '../../../src/providers/adapter.js';
import { geminiBatchEmbedAnswer } from '../../fakes/embedding-answers.js';

const validateEmbeddings = createBodyValidator(embeddingsRequestSchema);
const validateRerank = createBodyValidator(rerankRequestSchema);

function context(format: 'openai' | 'gemini', upstreamModel: string): AdapterContext {
  const provider = { id: format, name: format, format, baseUrl: 'http://127.0.0.1:1/v1', headers: {} } as unknown as ProviderConfig;
  return { provider, upstreamModel, credential: 'secret', stream: false };
}

/** Runs the reader as the body stage would: the schema first, then the rule. What it threw, or the call. */
function read<T>(validate: (body: unknown) => RouterError | undefined, reader: (body: never) => T, body: unknown): { call: T } | { refused: RouterError } {
  const invalid = validate(body);
  if (invalid) return { refused: invalid };
  try {
    return { call: reader(body as never) };
  } catch (error) {
    if (error instanceof RouterError) return { refused: error };
    throw error;
  }
}

const text = fc.string({ minLength: 1, maxLength: 40 });
const tokenId = fc.integer({ min: 0, max: 100_000 });

describe('readEmbeddingCall', () => {
  it('turns every well-formed input into the call, texts or tokens, every input once and in order', () => {
    const input = fc.oneof(
      text,
      fc.array(text, { minLength: 1, maxLength: 20 }),
      fc.array(tokenId, { minLength: 1, maxLength: 20 }),
      fc.array(fc.array(tokenId, { minLength: 1, maxLength: 10 }), { minLength: 1, maxLength: 10 }),
    );
    fc.assert(
      fc.property(input, fc.option(fc.integer({ min: 1, max: 4096 }), { nil: undefined }), (asked, dimensions) => {
        const body = { model: 'm', input: asked, ...(dimensions === undefined ? {} : { dimensions }) };
        const outcome = read(validateEmbeddings, readEmbeddingCall, body);
        expect('call' in outcome).toBe(true);
        const call = (outcome as { call: ReturnType<typeof readEmbeddingCall> }).call;
        const expected = typeof asked === 'string' ? [asked] : Array.isArray(asked[0]) || typeof asked[0] === 'string' ? asked : [asked];
        expect(call.inputs.kind === 'text' ? call.inputs.texts : call.inputs.tokens).toEqual(expected);
        expect(call.dimensions).toBe(dimensions);
      }),
    );
  });

  it('answers any other JSON with a 400 naming input (or the field at fault), never with another error', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (input) => {
        const outcome = read(validateEmbeddings, readEmbeddingCall, { model: 'm', input });
        if ('refused' in outcome) {
          expect(['invalid_request', 'unsupported_parameter']).toContain(outcome.refused.code);
          expect(outcome.refused.param ?? '').toMatch(/^input/);
        }
      }),
    );
  });

  it('names each bound it enforces', () => {
    const refusal = (input: unknown) => (read(validateEmbeddings, readEmbeddingCall, { model: 'm', input }) as { refused: RouterError }).refused.message;
    expect(refusal(Array.from({ length: EMBEDDING_BOUNDS.maxInputs + 1 }, () => 'x'))).toContain('maxInputs');
    expect(refusal(Array.from({ length: EMBEDDING_BOUNDS.maxTokensPerInput + 1 }, () => 1))).toContain('maxTokensPerInput');
    expect(refusal(Array.from({ length: 40 }, () => Array.from({ length: 8000 }, () => 1)))).toContain('maxTokens)');
    expect(refusal(['x'.repeat(EMBEDDING_BOUNDS.maxTextBytes + 1)])).toContain('maxTextBytes');
    // At the bound exactly, nothing is refused.
    expect('call' in read(validateEmbeddings, readEmbeddingCall, { model: 'm', input: Array.from({ length: EMBEDDING_BOUNDS.maxInputs }, () => 'x') })).toBe(true);
  });
});

describe('readRerankCall', () => {
  it('reads strings and {text} documents in order and keeps top_n within the documents; anything else is a 400 naming documents', () => {
    const document = fc.oneof(text, text.map((value) => ({ text: value })), fc.jsonValue({ maxDepth: 1 }));
    fc.assert(
      fc.property(fc.array(document, { minLength: 1, maxLength: 15 }), fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }), (documents, topN) => {
        const outcome = read(validateRerank, readRerankCall, { model: 'm', query: 'q', documents, ...(topN === undefined ? {} : { top_n: topN }) });
        const texts = documents.map((item) => (typeof item === 'string' ? item : typeof item === 'object' && item !== null && !Array.isArray(item) && typeof (item as { text?: unknown }).text === 'string' ? (item as { text: string }).text : undefined));
        if (texts.every((value) => value !== undefined)) {
          const call = (outcome as { call: ReturnType<typeof readRerankCall> }).call;
          expect(call.documents).toEqual(texts);
          expect(call.topN).toBe(topN === undefined ? undefined : Math.min(topN, texts.length));
        } else {
          expect((outcome as { refused: RouterError }).refused.param).toMatch(/^documents/);
        }
      }),
    );
    expect((read(validateRerank, readRerankCall, { model: 'm', query: 'q', documents: Array.from({ length: RERANK_BOUNDS.maxDocuments + 1 }, () => 'd') }) as { refused: RouterError }).refused.message).toContain('maxDocuments');
  });
});

describe('the translations', () => {
  it('sends Gemini one request per text with the task type and dimensions, and reads its answer back in order', () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 10 }),
        fc.constantFrom(undefined, 'search_query', 'search_document', 'CLUSTERING', 'classification'),
        fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
        (texts, inputType, dimensions) => {
          const request = geminiEmbeddings.buildRequest({ inputs: { kind: 'text', texts }, dimensions, inputType, user: undefined }, context('gemini', 'gemini-embedding-001'));
          expect(request.url).toBe('http://127.0.0.1:1/v1/models/gemini-embedding-001:batchEmbedContents');
          const answer = geminiBatchEmbedAnswer('gemini-embedding-001', JSON.parse(request.body));
          expect(answer.ok).toBe(true);
          const result = geminiEmbeddings.parseResponse((answer as { body: unknown }).body, texts.length)!;
          expect(result.vectors).toHaveLength(texts.length);
          if (dimensions !== undefined) expect(result.vectors.every((vector) => vector.length === dimensions)).toBe(true);
        },
      ),
    );
  });

  it('maps input_type to a Gemini task type or refuses it with a 400 naming input_type', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (inputType) => {
        try {
          expect(geminiTaskType(inputType)).toMatch(/^[A-Z_]+$/);
        } catch (error) {
          expect(error).toBeInstanceOf(RouterError);
          expect((error as RouterError).param).toBe('input_type');
        }
      }),
    );
    expect(geminiTaskType('search_document')).toBe('RETRIEVAL_DOCUMENT');
    // Names of Object's own members once found the prototype instead of a task type (fast-check met `__proto__`).
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(() => geminiTaskType(name)).toThrow(RouterError);
    }
  });

  it("puts OpenAI-format answers back in input order by index, and refuses one that misses or repeats an input", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }), fc.integer(), (vectors, seed) => {
        const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding }));
        const shuffled = [...data].sort((a, b) => ((a.index * 7919 + seed) % 13) - ((b.index * 7919 + seed) % 13));
        expect(openaiEmbeddings.parseResponse({ data: shuffled, usage: { prompt_tokens: 3 } }, vectors.length)).toEqual({ vectors, promptTokens: 3 });
        if (vectors.length > 1) expect(openaiEmbeddings.parseResponse({ data: [...data.slice(1), data[1]] }, vectors.length)).toBeUndefined();
      }),
    );
  });

  it('sends rerank without asking documents back, and ranks answers best first', () => {
    const request = openaiRerank.buildRequest({ query: 'q', documents: ['a', 'b'], topN: 1 }, context('openai', 'reranker'));
    expect(JSON.parse(request.body)).toEqual({ model: 'reranker', query: 'q', documents: ['a', 'b'], top_n: 1, return_documents: false });
    expect(openaiRerank.parseResponse({ results: [{ index: 1, relevance_score: 0.2 }, { index: 0, relevance_score: 0.9 }], usage: { total_tokens: 5 } }, 2)).toEqual({
      results: [{ index: 0, relevance_score: 0.9 }, { index: 1, relevance_score: 0.2 }],
      promptTokens: 5,
    });
    expect(openaiRerank.parseResponse({ results: [{ index: 2, relevance_score: 0.2 }] }, 2)).toBeUndefined();
  });

  it('encodes base64 as OpenAI does: little-endian float32, decoding to the float32 of every value', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { maxLength: 64 }), (vector) => {
        const bytes = Buffer.from(base64Vector(vector), 'base64');
        const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
        expect(decoded).toEqual(vector.map((value) => Math.fround(value)));
      }),
    );
  });

  it('expects the model’s own dimensions, shorter ones only where the model can give them', () => {
    const route = { id: 'm', family: 'model', description: '', quotaWeight: 1, retryBudget: 0, tiers: [], kind: 'embedding' as const, embedding: { dimensions: 1536, shortenable: false } };
    expect(expectedDimensions(route, undefined)).toBe(1536);
    expect(expectedDimensions(route, 1536)).toBe(1536);
    expect(() => expectedDimensions(route, 256)).toThrow(/1536 dimensions only/);
    const shortenable = { ...route, embedding: { dimensions: 1536, shortenable: true } };
    expect(expectedDimensions(shortenable, 256)).toBe(256);
    expect(() => expectedDimensions(shortenable, 2048)).toThrow(/at most 1536/);
  });
});

