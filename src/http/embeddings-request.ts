/**
 * The bounds of /v1/embeddings and /v1/rerank bodies (docs/embeddings.md) and the reading of a
 * schema-valid body into the call routing makes. Each is a body rule too: a body that breaks a bound is
 * refused with 400 `invalid_request` naming the field and the bound, before admission, so it never counts.
 */
import { RouterError } from '../core/errors.js';
import type { EmbeddingCall, EmbeddingsRequest, RerankCall, RerankRequest } from '../formats/embeddings.js';

/** OpenAI's own limits on one embeddings request, so a batch that passes here is one any host takes. */
export const EMBEDDING_BOUNDS = {
  /** Inputs in one request. */
  maxInputs: 2048,
  /** UTF-8 bytes of all text inputs together. */
  maxTextBytes: 4 * 1024 * 1024,
  /** Token ids in one token-array input. */
  maxTokensPerInput: 8192,
  /** Token ids in all token-array inputs together. */
  maxTokens: 300_000,
} as const;

export const RERANK_BOUNDS = {
  /** Documents in one request. */
  maxDocuments: 1000,
  /** UTF-8 bytes of the query and every document together. */
  maxTextBytes: 4 * 1024 * 1024,
} as const;

/** The largest token id any tokenizer uses is far below this; above it the array is not tokens. */
const MAX_TOKEN_ID = 2 ** 31 - 1;

function invalid(param: string, message: string): RouterError {
  return new RouterError('invalid_request', message, { param });
}

/**
 * The body's inputs as texts or token arrays, or the 400 for the first problem: an empty input, a mix of
 * kinds, something neither text nor token ids, or a bound broken (its name and value in the message).
 */
export function readEmbeddingCall(body: EmbeddingsRequest): EmbeddingCall {
  const base = { dimensions: body.dimensions, inputType: body.input_type, user: body.user };
  const input: unknown = body.input;
  if (typeof input === 'string') return { ...base, inputs: { kind: 'text', texts: [checkedTexts([input])[0]!] } };
  if (!Array.isArray(input) || input.length === 0) throw invalid('input', "Invalid value for 'input': send a string, an array of strings, an array of token ids or an array of token-id arrays, not an empty array.");
  if (input.every((item) => typeof item === 'number')) return { ...base, inputs: { kind: 'tokens', tokens: checkedTokens([input as number[]], false) } };
  if (input.length > EMBEDDING_BOUNDS.maxInputs) {
    throw invalid('input', `Too many inputs: ${input.length} in one request; the limit is ${EMBEDDING_BOUNDS.maxInputs} (maxInputs). Split the batch.`);
  }
  if (input.every((item) => typeof item === 'string')) return { ...base, inputs: { kind: 'text', texts: checkedTexts(input as string[]) } };
  if (input.every((item) => Array.isArray(item))) return { ...base, inputs: { kind: 'tokens', tokens: checkedTokens(input as unknown[][], true) } };
  throw invalid('input', "Invalid value for 'input': every item must be of one kind: all strings, all token ids, or all token-id arrays.");
}

function checkedTexts(texts: string[]): string[] {
  let bytes = 0;
  texts.forEach((text, i) => {
    if (text.length === 0) throw invalid(texts.length === 1 ? 'input' : `input[${i}]`, "Invalid value for 'input': an input must not be empty.");
    bytes += Buffer.byteLength(text, 'utf8');
  });
  if (bytes > EMBEDDING_BOUNDS.maxTextBytes) {
    throw invalid('input', `The inputs hold ${bytes} bytes of text; the limit is ${EMBEDDING_BOUNDS.maxTextBytes} bytes per request (maxTextBytes). Split the batch.`);
  }
  return texts;
}

function checkedTokens(arrays: unknown[][], nested: boolean): number[][] {
  let total = 0;
  arrays.forEach((tokens, i) => {
    const param = nested ? `input[${i}]` : 'input';
    if (tokens.length === 0) throw invalid(param, "Invalid value for 'input': a token array must not be empty.");
    if (tokens.length > EMBEDDING_BOUNDS.maxTokensPerInput) {
      throw invalid(param, `An input has ${tokens.length} token ids; the limit is ${EMBEDDING_BOUNDS.maxTokensPerInput} per input (maxTokensPerInput).`);
    }
    for (const token of tokens) {
      if (typeof token !== 'number' || !Number.isInteger(token) || token < 0 || token > MAX_TOKEN_ID) {
        throw invalid(param, `Invalid value for '${param}': token ids are integers from 0 to ${MAX_TOKEN_ID}.`);
      }
    }
    total += tokens.length;
  });
  if (total > EMBEDDING_BOUNDS.maxTokens) {
    throw invalid('input', `The inputs hold ${total} token ids; the limit is ${EMBEDDING_BOUNDS.maxTokens} per request (maxTokens). Split the batch.`);
  }
  return arrays as number[][];
}

/** The query and the documents' texts, or the 400 for the first problem (a document without text, a bound broken). */
export function readRerankCall(body: RerankRequest): RerankCall {
  const documents: unknown[] = body.documents;
  if (documents.length > RERANK_BOUNDS.maxDocuments) {
    throw invalid('documents', `Too many documents: ${documents.length} in one request; the limit is ${RERANK_BOUNDS.maxDocuments} (maxDocuments).`);
  }
  let bytes = Buffer.byteLength(body.query, 'utf8');
  const texts = documents.map((document, i) => {
    const text = typeof document === 'string' ? document : (document as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') throw invalid(`documents[${i}]`, `Invalid value for 'documents[${i}]': a document is a string or an object with a string 'text'.`);
    bytes += Buffer.byteLength(text, 'utf8');
    return text;
  });
  if (bytes > RERANK_BOUNDS.maxTextBytes) {
    throw invalid('documents', `The query and documents hold ${bytes} bytes of text; the limit is ${RERANK_BOUNDS.maxTextBytes} bytes per request (maxTextBytes).`);
  }
  return { query: body.query, documents: texts, topN: body.top_n === undefined ? undefined : Math.min(body.top_n, texts.length) };
}
