/**
 * Embeddings and rerank on OpenAI-compatible hosts: OpenAI's POST /embeddings as it is (floats asked for,
 * so every host's answer reads the same; the router encodes base64 itself), and POST /rerank in the
 * Cohere/Jina shape (documents never asked back: the router has them). `input_type` is not sent: OpenAI
 * refuses fields it does not know, and the hosts that take one disagree on its values.
 */
import type { EmbeddingCall, EmbeddingResult, RerankCall, RerankResult } from '../../formats/embeddings.js';
import type { AdapterContext, EmbeddingsCapability, RerankCapability } from '../adapter.js';
import { isRecord } from './is-record.js';
import { openaiRequest } from './openai-request.js';

function buildEmbeddingsRequest(call: EmbeddingCall, ctx: AdapterContext) {
  const input = call.inputs.kind === 'text' ? call.inputs.texts : call.inputs.tokens;
  return openaiRequest(ctx, '/embeddings', {
    model: ctx.upstreamModel,
    input,
    encoding_format: 'float',
    ...(call.dimensions === undefined ? {} : { dimensions: call.dimensions }),
    ...(call.user === undefined ? {} : { user: call.user }),
  });
}

/** `data` items put back in input order by their `index` (hosts may answer out of order); every input once. */
function parseEmbeddingsResponse(body: unknown, inputs: number): EmbeddingResult | undefined {
  if (!isRecord(body) || !Array.isArray(body.data) || body.data.length !== inputs) return undefined;
  const vectors: number[][] = new Array(inputs);
  for (const item of body.data as unknown[]) {
    if (!isRecord(item) || !Array.isArray(item.embedding) || !item.embedding.every((value) => typeof value === 'number')) return undefined;
    const index = item.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= inputs || vectors[index] !== undefined) return undefined;
    vectors[index] = item.embedding as number[];
  }
  return { vectors, promptTokens: promptTokensOf(body.usage) };
}

/** `usage.prompt_tokens` (OpenAI), else `usage.total_tokens` (Jina, vLLM's rerank); null when neither is a count. */
function promptTokensOf(usage: unknown): number | null {
  if (!isRecord(usage)) return null;
  for (const field of ['prompt_tokens', 'total_tokens']) {
    const value = usage[field];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  }
  return null;
}

function buildRerankRequest(call: RerankCall, ctx: AdapterContext) {
  return openaiRequest(ctx, '/rerank', {
    model: ctx.upstreamModel,
    query: call.query,
    documents: call.documents,
    ...(call.topN === undefined ? {} : { top_n: call.topN }),
    return_documents: false,
  });
}

function parseRerankResponse(body: unknown, documents: number): RerankResult | undefined {
  if (!isRecord(body) || !Array.isArray(body.results)) return undefined;
  const results: RerankResult['results'] = [];
  for (const item of body.results as unknown[]) {
    if (!isRecord(item)) return undefined;
    const { index, relevance_score: score } = item;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documents || typeof score !== 'number' || !Number.isFinite(score)) return undefined;
    results.push({ index, relevance_score: score });
  }
  results.sort((a, b) => b.relevance_score - a.relevance_score);
  return { results, promptTokens: promptTokensOf(body.usage) };
}

export const openaiEmbeddings: EmbeddingsCapability = { buildRequest: buildEmbeddingsRequest, parseResponse: parseEmbeddingsResponse };
export const openaiRerank: RerankCapability = { buildRequest: buildRerankRequest, parseResponse: parseRerankResponse };
