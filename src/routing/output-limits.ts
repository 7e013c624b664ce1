/**
 * A request's output cap, lowered to the served model's published limit (catalog.yaml `models`) for each
 * candidate: Claude Code asks for up to 128000 tokens, the Codex CLI and SDK users for what they like,
 * and an upstream refuses a cap above its model's limit with a 400 that no failover would fix. Lowering
 * it is what the client would have to do anyway; a cap at or below the limit, or a model with no known
 * limit, is sent as asked. The one rule for every API the router sends an output cap on.
 */
import type { CatalogModel } from '../config/types.js';
import type { Candidate } from './failover.js';

export interface OutputLimits {
  /** The model's published output limit, or undefined when the catalog has none. */
  of(providerId: string, model: string): number | undefined;
  /** The model's whole catalog entry (its thinking budgets too), or undefined. */
  entry(providerId: string, model: string): CatalogModel | undefined;
}

export function outputLimitsFrom(models: readonly CatalogModel[]): OutputLimits {
  const entries = new Map(models.map((entry) => [`${entry.provider}\u0000${entry.model}`, entry]));
  const entry = (providerId: string, model: string) => entries.get(`${providerId}\u0000${model}`);
  return { of: (providerId, model) => entry(providerId, model)?.maxOutputTokens, entry };
}

/** The fields that carry an output cap on each request shape the router sends upstream. */
export const OUTPUT_CAP_FIELDS = {
  chat: ['max_completion_tokens', 'max_tokens'],
  responses: ['max_output_tokens'],
  messages: ['max_tokens'],
} as const;

/** `body` with every cap field above `limit` lowered to it: a copy when one is, else `body` itself. */
export function withinOutputLimit<T extends object>(body: T, fields: readonly string[], limit: number | undefined): T {
  if (limit === undefined) return body;
  const over = fields.filter((field) => {
    const asked = (body as Record<string, unknown>)[field];
    return typeof asked === 'number' && asked > limit;
  });
  if (over.length === 0) return body;
  return { ...body, ...Object.fromEntries(over.map((field) => [field, limit])) };
}

/** `body`, a request of `api`'s shape, within the candidate's model's limit. */
export function withinCandidateLimit<T extends object>(limits: OutputLimits, candidate: Candidate, body: T, api: keyof typeof OUTPUT_CAP_FIELDS): T {
  return withinOutputLimit(body, OUTPUT_CAP_FIELDS[api], limits.of(candidate.provider.id, candidate.target.model));
}
