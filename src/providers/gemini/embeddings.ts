/**
 * Embeddings on the Gemini Developer API: `models/{model}:batchEmbedContents`, one request per input,
 * OpenRouter's `input_type` as Gemini's `taskType` and `dimensions` as `outputDimensionality`. Gemini
 * embeds text only, so token arrays are refused. Its answer carries no token count unless
 * `usageMetadata` is there: the cost is then unknown, never guessed.
 */
import { RouterError } from '../../core/errors.js';
import type { EmbeddingCall, EmbeddingResult } from '../../formats/embeddings.js';
import type { AdapterContext, EmbeddingsCapability } from '../adapter.js';

/**
 * Gemini's task types, by the `input_type` values OpenRouter, Cohere and others use. A Map, not an object
 * literal: the key is the caller's text, and `__proto__` or `constructor` must not find Object's own members.
 */
const TASK_TYPES: ReadonlyMap<string, string> = new Map(Object.entries({
  search_query: 'RETRIEVAL_QUERY',
  query: 'RETRIEVAL_QUERY',
  search_document: 'RETRIEVAL_DOCUMENT',
  document: 'RETRIEVAL_DOCUMENT',
  passage: 'RETRIEVAL_DOCUMENT',
  classification: 'CLASSIFICATION',
  clustering: 'CLUSTERING',
  semantic_similarity: 'SEMANTIC_SIMILARITY',
  question_answering: 'QUESTION_ANSWERING',
  fact_verification: 'FACT_VERIFICATION',
  code_retrieval_query: 'CODE_RETRIEVAL_QUERY',
}));
const GEMINI_TASK_TYPES = new Set(TASK_TYPES.values());

/** The task type for an `input_type`, or the 400 naming the values Gemini takes. */
export function geminiTaskType(inputType: string | undefined): string | undefined {
  if (inputType === undefined) return undefined;
  if (GEMINI_TASK_TYPES.has(inputType)) return inputType;
  const mapped = TASK_TYPES.get(inputType.toLowerCase());
  if (mapped) return mapped;
  throw new RouterError('unsupported_parameter', `Invalid value for 'input_type': Gemini embeddings take one of ${[...TASK_TYPES.keys()].join(', ')} (or Gemini's own task type names).`, {
    param: 'input_type',
  });
}

function buildRequest(call: EmbeddingCall, ctx: AdapterContext) {
  if (call.inputs.kind === 'tokens') {
    throw new RouterError('unsupported_parameter', "Gemini embeds text only: send 'input' as a string or an array of strings, not token ids.", { param: 'input' });
  }
  const model = `models/${ctx.upstreamModel}`;
  const taskType = geminiTaskType(call.inputType);
  const requests = call.inputs.texts.map((text) => ({
    model,
    content: { parts: [{ text }] },
    ...(taskType === undefined ? {} : { taskType }),
    ...(call.dimensions === undefined ? {} : { outputDimensionality: call.dimensions }),
  }));
  return {
    url: `${ctx.provider.baseUrl}/models/${encodeURIComponent(ctx.upstreamModel)}:batchEmbedContents`,
    headers: { ...ctx.provider.headers, 'content-type': 'application/json', 'x-goog-api-key': ctx.credential },
    body: JSON.stringify({ requests }),
  };
}

function parseResponse(body: unknown, inputs: number): EmbeddingResult | undefined {
  const embeddings = (body as { embeddings?: unknown } | null)?.embeddings;
  if (!Array.isArray(embeddings) || embeddings.length !== inputs) return undefined;
  const vectors: number[][] = [];
  for (const embedding of embeddings as unknown[]) {
    const values = (embedding as { values?: unknown } | null)?.values;
    if (!Array.isArray(values) || !values.every((value) => typeof value === 'number')) return undefined;
    vectors.push(values as number[]);
  }
  const counted = (body as { usageMetadata?: { promptTokenCount?: unknown } }).usageMetadata?.promptTokenCount;
  return { vectors, promptTokens: typeof counted === 'number' && Number.isInteger(counted) && counted >= 0 ? counted : null };
}

export const geminiEmbeddings: EmbeddingsCapability = { buildRequest, parseResponse };
