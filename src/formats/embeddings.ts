/**
 * POST /v1/embeddings (OpenAI's shape, with OpenRouter's `input_type` and `provider`) and POST /v1/rerank
 * (the Cohere/Jina shape that vLLM, OpenRouter and Bifrost follow): the request schemas the body stage
 * checks, and the calls the router makes of them. The schema checks each field's type; `input` and
 * `documents` are open unions with bounds (how many, how large), read by http/embeddings-request.ts,
 * which names the field and the bound a request breaks.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './wire-schema.js';

/** What OpenAI's `input` may be: one text, several, one token array, several. */
export type EmbeddingInput = string | string[] | number[] | number[][];

export const embeddingsRequestSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.Unsafe<EmbeddingInput>({ type: ['string', 'array'] }),
  dimensions: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_536 })),
  encoding_format: Type.Optional(StringEnum(['float', 'base64'] as const)),
  user: Type.Optional(Type.String({ maxLength: 256 })),
  // OpenRouter's: what the text is for (search_query, search_document, classification, …); Gemini's task type.
  input_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});
export type EmbeddingsRequest = Static<typeof embeddingsRequestSchema>;

/** One document to rerank: its text, or an object carrying it (Cohere v1 and Jina take both). */
export type RerankDocument = string | { text: string };

export const rerankRequestSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  query: Type.String({ minLength: 1 }),
  documents: Type.Unsafe<RerankDocument[]>({ type: 'array', minItems: 1, items: { type: ['string', 'object'] } }),
  top_n: Type.Optional(Type.Integer({ minimum: 1 })),
  return_documents: Type.Optional(Type.Boolean()),
  user: Type.Optional(Type.String({ maxLength: 256 })),
});
export type RerankRequest = Static<typeof rerankRequestSchema>;

/** The top-level fields each endpoint accepts (others are refused, as on the native pass-throughs); `provider` is the router's. */
export const EMBEDDINGS_FIELDS: ReadonlySet<string> = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user', 'input_type', 'provider']);
export const RERANK_FIELDS: ReadonlySet<string> = new Set(['model', 'query', 'documents', 'top_n', 'return_documents', 'user', 'provider']);

/**
 * An embeddings request as routing sends it to any upstream: the inputs as texts or as token arrays
 * (never mixed), the vector length wanted when the client named one, and what the texts are for.
 */
export interface EmbeddingCall {
  inputs: { kind: 'text'; texts: string[] } | { kind: 'tokens'; tokens: number[][] };
  dimensions: number | undefined;
  inputType: string | undefined;
  user: string | undefined;
}

/** Vectors in input order, and the tokens the upstream counted (null: it reported none). */
export interface EmbeddingResult {
  vectors: number[][];
  promptTokens: number | null;
}

export interface RerankCall {
  query: string;
  documents: string[];
  topN: number | undefined;
}

/** Each document's relevance, best first; `index` points into the request's documents. */
export interface RerankResult {
  results: Array<{ index: number; relevance_score: number }>;
  promptTokens: number | null;
}
