/**
 * POST /v1/embeddings (OpenAI's shape) and POST /v1/rerank (the Cohere/Jina shape): admitted as model
 * traffic (the same stages, quota, limits, spend gate, ledger, receipt and metrics as chat), routed to
 * the model's hosts that serve the endpoint, answered with `usage` and its cost like every model call.
 * Vectors are asked of every host as floats and encoded here when the client wants base64 (OpenAI's
 * little-endian float32), so every host's answer reads the same.
 */
import type { H3Event } from 'h3';
import type { RouteProfileConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import type { TokenUsage } from '../../core/token-usage.js';
import type { EmbeddingsRequest, RerankRequest } from '../../formats/embeddings.js';
import { readEmbeddingCall, readRerankCall } from '../embeddings-request.js';
import type { AdmittedRequest, ServingRecord } from '../request-context.js';
import type { RouterDeps } from '../router-deps.js';
import { prepareModelCall, recordAnswer, type ServerToolsOf } from './model-call.js';

/** Neither endpoint has an output cap or server tools. */
const NO_OUTPUT_CAP = () => undefined;
const NO_SERVER_TOOLS: ServerToolsOf = () => ({ features: [], limitCalls() {} });

/** The prompt tokens the upstream counted as the ledger's usage (null: it reported none, recorded as unknown). */
function inputTokens(prompt: number | null): TokenUsage | null {
  return prompt === null ? null : { prompt, completion: 0, reasoning: 0, cached: 0 };
}

/** OpenAI's usage object; 0 where the upstream counted nothing (the ledger records unknown, and no cost is shown). */
function shownUsage(prompt: number | null): { prompt_tokens: number; total_tokens: number } {
  return { prompt_tokens: prompt ?? 0, total_tokens: prompt ?? 0 };
}

/**
 * The length every vector must have: the request's `dimensions` when the model can shorten its vectors
 * to it, the model's own otherwise; a length the model cannot give is the client's 400, before any call.
 */
export function expectedDimensions(route: RouteProfileConfig, asked: number | undefined): number | undefined {
  const shape = route.embedding;
  if (asked === undefined || !shape) return shape?.dimensions;
  if (asked === shape.dimensions) return asked;
  if (!shape.shortenable) {
    throw new RouterError('unsupported_parameter', `The model '${route.id}' returns vectors of ${shape.dimensions} dimensions only; leave 'dimensions' out or set it to ${shape.dimensions}.`, { param: 'dimensions' });
  }
  if (asked > shape.dimensions) {
    throw new RouterError('invalid_request', `Invalid value for 'dimensions': the model '${route.id}' returns at most ${shape.dimensions} dimensions.`, { param: 'dimensions' });
  }
  return asked;
}

/** A vector as OpenAI's base64: the float32 values, little-endian, in one base64 string. */
export function base64Vector(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

export function createEmbeddingsRoute(deps: RouterDeps) {
  return async (event: H3Event, request: AdmittedRequest, serving: ServingRecord): Promise<unknown> => {
    const body = request.body as EmbeddingsRequest;
    const embedding = readEmbeddingCall(body);
    const { route, call } = await prepareModelCall(event, request, serving, deps, { capOutput: NO_OUTPUT_CAP, serverTools: NO_SERVER_TOOLS, kind: 'embedding' });
    const dimensions = expectedDimensions(route, body.dimensions);
    const { value, meta } = await deps.engine.embed(call, embedding, dimensions);
    const usage = shownUsage(value.promptTokens);
    recordAnswer(event, serving, deps, meta, { tokens: inputTokens(value.promptTokens), finishReason: undefined, shownUsage: usage, generates: false });
    const base64 = body.encoding_format === 'base64';
    return {
      object: 'list',
      data: value.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? base64Vector(vector) : vector })),
      model: route.id,
      usage,
    };
  };
}

export function createRerankRoute(deps: RouterDeps) {
  return async (event: H3Event, request: AdmittedRequest, serving: ServingRecord): Promise<unknown> => {
    const body = request.body as RerankRequest;
    const rerank = readRerankCall(body);
    const { route, call } = await prepareModelCall(event, request, serving, deps, { capOutput: NO_OUTPUT_CAP, serverTools: NO_SERVER_TOOLS, kind: 'rerank' });
    const { value, meta } = await deps.engine.rerank(call, rerank);
    const usage = shownUsage(value.promptTokens);
    recordAnswer(event, serving, deps, meta, { tokens: inputTokens(value.promptTokens), finishReason: undefined, shownUsage: usage, generates: false });
    const results = value.results.slice(0, rerank.topN ?? value.results.length).map(({ index, relevance_score }) => ({
      index,
      relevance_score,
      ...(body.return_documents ? { document: { text: rerank.documents[index]! } } : {}),
    }));
    return { id: serving.requestId, object: 'rerank', model: route.id, results, usage };
  };
}
