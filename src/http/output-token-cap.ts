/**
 * A plan's `maxOutputTokens` (plans.yaml): a request that asks for more is refused with a 400 naming the
 * field (the router's own refusal, so refunded), and a request that asks for no cap is sent with the
 * plan's, so the cap holds whatever the provider's default would have been.
 */
import type { PlanConfig } from '../config/types.js';
import { RouterError } from '../core/errors.js';

/** The fields that carry an output cap, the preferred one first (the one set when none is). */
const CAP_FIELDS = {
  chat: ['max_completion_tokens', 'max_tokens'],
  responses: ['max_output_tokens'],
} as const;

export function applyOutputTokenCap(body: Record<string, unknown>, plan: PlanConfig | undefined, api: keyof typeof CAP_FIELDS): void {
  const cap = plan?.maxOutputTokens;
  if (plan === undefined || cap === undefined) return;
  const fields = CAP_FIELDS[api];
  for (const field of fields) {
    const asked = body[field];
    if (typeof asked === 'number' && asked > cap) {
      throw new RouterError('invalid_request', `The ${plan.name} plan allows at most ${cap} output tokens per request; '${field}' asks for ${asked}.`, { param: field });
    }
  }
  if (fields.every((field) => body[field] == null)) body[fields[0]] = cap;
}
