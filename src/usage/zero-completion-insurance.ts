/**
 * Zero-completion insurance (docs/usage.md#zero-completion-insurance): an answer that gave the caller
 * nothing costs the caller nothing. An upstream served the request, and either it reported zero
 * completion tokens and no finish reason (an empty answer), or the answer ended in an error (a failure
 * reported in-band after the stream started, chat's `finish_reason: "error"`, a Responses `failed`
 * status). Such a request gets its monthly quota unit back, shows `usage.cost` 0, is recorded at cost 0
 * (so no spend cap, budget or key limit is charged) and its ledger row and receipt say `insured`.
 *
 * One rule for every API and every upstream, read from the request's record after translation. A
 * translation gives every answer an ending (Messages' `end_turn`, a Response's `completed`, chat's
 * `stop` where a host sent [DONE] without one), so an answer of zero completion tokens that ended
 * with only that natural end is as empty as one with no finish reason, and insured alike. Deliberate
 * ends are not: a length limit, a content filter or a refusal, tool calls. Nor is a client that leaves:
 * the upstream did the work it asked for.
 */
import type { ResponseCost } from './response-cost.js';

/** How an answer ended, as the request's record holds it. */
export interface AnswerEnding {
  /** An upstream committed to the answer (nothing served: nothing to insure, the refusal paths refund it). */
  served: boolean;
  /** The API generates a completion (chat, Responses, Messages); embeddings and rerank never do, and are never insured. */
  generates: boolean;
  /** Completion tokens the upstream reported; null or undefined when it reported no usage. */
  completionTokens: number | null | undefined;
  /** The finish reason the client saw (chat's finish_reason, Messages' stop_reason, the Response's status). */
  finishReason: string | null | undefined;
  /** The contract error code the answer ended with, also one sent in-band after the stream started. */
  errorCode: string | null | undefined;
}

/** Finish reasons that are errors: chat's `error` (OpenRouter's), a Responses `failed` status. */
export const ERROR_FINISHES: ReadonlySet<string> = new Set(['error', 'failed']);

/** The ends of an answer that simply stopped, in each API's words (and what translations default to). */
export const NATURAL_ENDS: ReadonlySet<string> = new Set(['stop', 'end_turn', 'completed']);

/** Endings that are the client's own doing, never insured. */
const CLIENT_ENDINGS: ReadonlySet<string> = new Set(['client_closed_request']);

export function isInsured(ending: AnswerEnding): boolean {
  if (!ending.served || !ending.generates) return false;
  const { errorCode, finishReason } = ending;
  if (errorCode !== null && errorCode !== undefined) return !CLIENT_ENDINGS.has(errorCode);
  const finished = finishReason !== null && finishReason !== undefined && finishReason !== '';
  if (finished && ERROR_FINISHES.has(finishReason)) return true;
  return ending.completionTokens === 0 && (!finished || NATURAL_ENDS.has(finishReason));
}

/** The cost an insured answer shows, whatever it would have cost (also when its price is unknown): every figure 0. */
export function insuredCost(): ResponseCost {
  return { cost: 0, cost_details: { input: 0, cache_read: 0, cache_write: 0, cache_write_1h: 0, output: 0, reasoning: 0, server_tools: 0, cache_savings: 0 } };
}

/** The cost an answer shows: its price's, or nothing at all when insured. */
export function shownCost(cost: ResponseCost | undefined, ending: AnswerEnding): ResponseCost | undefined {
  return isInsured(ending) ? insuredCost() : cost;
}
