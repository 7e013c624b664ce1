/**
 * The embeddings and rerank answers of the fakes, in the real formats: OpenAI's `POST /v1/embeddings`
 * (floats, or base64 little-endian float32 when asked; `usage.prompt_tokens`), the Cohere/Jina
 * `POST /v1/rerank` (results best first, `usage.total_tokens`) and Gemini's
 * `models/{model}:batchEmbedContents` (`embeddings[].values`), with each API's refusals of a bad
 * request. Vectors are deterministic in the text, so a test can check them through any client.
 */
import { createHash } from 'node:crypto';

type Json = Record<string, unknown>;

/** Default vector lengths of the models the fakes know; any other model answers this many. */
export const FAKE_DEFAULT_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'gemini-embedding-001': 3072,
};
const OTHER_MODEL_DIMENSIONS = 8;
/** A model whose host answers vectors of the wrong length (a misconfigured host), for failover tests. */
export const WRONG_DIMENSIONS_MODEL = 'wrong-dimensions';

/** The fake's vector for a text or token array: values in [-1, 1) from its hash, the same every time. */
export function fakeVector(input: string | number[], dimensions: number): number[] {
  const seed = createHash('sha256').update(typeof input === 'string' ? input : JSON.stringify(input)).digest();
  return Array.from({ length: dimensions }, (_, i) => Math.fround((seed[i % seed.length]! - 128) / 128 + i / (dimensions * 1024)));
}

/** The fake's token count for a text: one per four bytes, at least one (a token array counts its ids). */
export function fakeTokens(input: string | number[]): number {
  return typeof input === 'string' ? Math.max(1, Math.ceil(Buffer.byteLength(input, 'utf8') / 4)) : input.length;
}

function dimensionsOf(model: string, asked: unknown): number {
  if (model === WRONG_DIMENSIONS_MODEL) return 3;
  return typeof asked === 'number' ? asked : (FAKE_DEFAULT_DIMENSIONS[model] ?? OTHER_MODEL_DIMENSIONS);
}

function openaiError(message: string, param: string | null, code: string | null) {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

/** OpenAI's answer to POST /v1/embeddings, or its 400 for an input it does not take. */
export function openaiEmbeddingsAnswer(body: unknown): { status: number; body: unknown } {
  const request = (body ?? {}) as Json;
  const input = request.input;
  const inputs: Array<string | number[]> =
    typeof input === 'string' ? [input] : Array.isArray(input) && input.every((item) => typeof item === 'number') ? [input as number[]] : Array.isArray(input) ? (input as Array<string | number[]>) : [];
  if (inputs.length === 0 || inputs.some((item) => (typeof item !== 'string' && !Array.isArray(item)) || item.length === 0)) {
    return { status: 400, body: openaiError("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", null, null) };
  }
  if (inputs.length > 2048) return { status: 400, body: openaiError("'$.input' is too long: at most 2048 inputs.", 'input', null) };
  for (const field of Object.keys(request)) {
    if (!['model', 'input', 'dimensions', 'encoding_format', 'user'].includes(field)) return { status: 400, body: openaiError(`Unrecognized request argument supplied: ${field}`, null, null) };
  }
  const model = String(request.model ?? '');
  const dimensions = dimensionsOf(model, request.dimensions);
  const base64 = request.encoding_format === 'base64';
  const data = inputs.map((item, index) => {
    const vector = fakeVector(item, dimensions);
    return { object: 'embedding', index, embedding: base64 ? encodeBase64(vector) : vector };
  });
  const tokens = inputs.reduce((sum, item) => sum + fakeTokens(item), 0);
  return { status: 200, body: { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
}

function encodeBase64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

/** The fake's relevance of a document to a query: the share of the query's words it contains. */
export function fakeRelevance(query: string, document: string): number {
  const words = query.toLowerCase().split(/\W+/).filter(Boolean);
  const text = document.toLowerCase();
  return words.length === 0 ? 0 : words.filter((word) => text.includes(word)).length / words.length;
}

/** Jina's (and vLLM's) answer to POST /v1/rerank: results best first, `top_n` of them, documents only when asked. */
export function rerankAnswer(body: unknown): { status: number; body: unknown } {
  const request = (body ?? {}) as Json;
  const documents = request.documents;
  if (typeof request.query !== 'string' || !Array.isArray(documents) || documents.length === 0) {
    return { status: 422, body: { detail: [{ type: 'missing', loc: ['body', 'query'], msg: 'Field required' }] } };
  }
  const texts = documents.map((document) => (typeof document === 'string' ? document : String((document as Json).text ?? '')));
  const query = request.query;
  const ranked = texts
    .map((text, index) => ({ index, relevance_score: fakeRelevance(query, text), ...(request.return_documents === true ? { document: { text } } : {}) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const topN = typeof request.top_n === 'number' ? request.top_n : ranked.length;
  const tokens = fakeTokens(query) + texts.reduce((sum, text) => sum + fakeTokens(text), 0);
  return { status: 200, body: { model: request.model, results: ranked.slice(0, topN), usage: { total_tokens: tokens } } };
}

/** Gemini's answer to batchEmbedContents, or the INVALID_ARGUMENT message for a request it refuses. */
export function geminiBatchEmbedAnswer(model: string, body: unknown): { ok: true; body: unknown } | { ok: false; message: string } {
  const requests = (body as Json | null)?.requests;
  if (!Array.isArray(requests) || requests.length === 0) return { ok: false, message: '* BatchEmbedContentsRequest.requests: contents is not specified' };
  if (requests.length > 100) return { ok: false, message: '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch' };
  const embeddings = [];
  for (const request of requests as Json[]) {
    if (request.model !== `models/${model}`) return { ok: false, message: `* BatchEmbedContentsRequest.model: model in request does not match the batch model models/${model}` };
    const parts = ((request.content as Json | undefined)?.parts ?? []) as Json[];
    const text = parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
    if (text === '') return { ok: false, message: '* BatchEmbedContentsRequest.requests[0].content.parts: contents is not specified' };
    const taskType = request.taskType;
    if (taskType !== undefined && !GEMINI_TASK_TYPES.has(String(taskType))) return { ok: false, message: `Invalid value at 'requests[0].task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${String(taskType)}"` };
    embeddings.push({ values: fakeVector(text, dimensionsOf(model, request.outputDimensionality)) });
  }
  return { ok: true, body: { embeddings } };
}

const GEMINI_TASK_TYPES = new Set([
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
]);
