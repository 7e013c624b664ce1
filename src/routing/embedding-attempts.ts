/**
 * `POST /v1/embeddings` and `POST /v1/rerank`: only the route's targets whose provider serves the
 * endpoint (providers.yaml `embeddings`/`rerank`, and an adapter with the capability) are candidates,
 * with failover between them. An embedding model's route is one model at several hosts, so every
 * candidate returns vectors of the same space; an answer whose vectors have another length than the
 * request expects is unfit (CandidateUnfit) and the next host is tried, never another model.
 */
import type { EmbeddingCall, EmbeddingResult, RerankCall, RerankResult } from '../formats/embeddings.js';
import { adapterContext, adapterOf, parseJsonBody, sendOrFail, type AttemptDeps } from './chat-attempts.js';
import { AttemptFailed, CandidateUnfit, type Candidate } from './failover.js';

function invalidAnswer(candidate: Candidate, what: string): AttemptFailed {
  return new AttemptFailed({ status: 502, type: 'upstream_error', code: 'invalid_upstream_response', message: `The upstream ${candidate.provider.name} answered with a body that is not ${what}.` });
}

/** `expectedDimensions`: the length every vector must have (the request's `dimensions`, else the model's). */
export async function embeddingAttempt(deps: AttemptDeps, candidate: Candidate, call: EmbeddingCall, expectedDimensions: number | undefined, signal: AbortSignal): Promise<EmbeddingResult> {
  const adapter = adapterOf(deps, candidate);
  const embeddings = adapter.embeddings;
  // servingTargetsOf (count-tokens-attempt.ts) left only providers whose adapter has it; a route built otherwise is the router's bug.
  if (!embeddings) throw new Error(`embeddings reached provider ${candidate.provider.id}, whose format has none`);
  const request = embeddings.buildRequest(call, adapterContext(candidate, false));
  const reply = await sendOrFail(deps, adapter, candidate, request, signal);
  const inputs = call.inputs.kind === 'text' ? call.inputs.texts.length : call.inputs.tokens.length;
  const result = embeddings.parseResponse(parseJsonBody(await reply.text()), inputs);
  if (!result) throw invalidAnswer(candidate, 'an embeddings answer');
  if (expectedDimensions !== undefined && result.vectors.some((vector) => vector.length !== expectedDimensions)) {
    throw new CandidateUnfit('wrong_dimensions', `The upstream ${candidate.provider.name} answered vectors of another length than ${expectedDimensions}.`);
  }
  return result;
}

export async function rerankAttempt(deps: AttemptDeps, candidate: Candidate, call: RerankCall, signal: AbortSignal): Promise<RerankResult> {
  const adapter = adapterOf(deps, candidate);
  const rerank = adapter.rerank;
  if (!rerank) throw new Error(`rerank reached provider ${candidate.provider.id}, whose format has none`);
  const reply = await sendOrFail(deps, adapter, candidate, rerank.buildRequest(call, adapterContext(candidate, false)), signal);
  const result = rerank.parseResponse(parseJsonBody(await reply.text()), call.documents.length);
  if (!result) throw invalidAnswer(candidate, 'a rerank answer');
  return result;
}
