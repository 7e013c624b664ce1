/**
 * What POST/PATCH /v1/keys and the rotation accept (OpenRouter's fields, plus the router's per-key
 * per-minute limit): JSON Schemas the body is validated with, so every refusal names its field.
 */
import { Type } from '@sinclair/typebox';

const limit = Type.Union([Type.Number({ minimum: 0, maximum: 1_000_000 }), Type.Null()], { description: 'Spend limit in USD; null: none.' });
const limitReset = Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly'), Type.Null()], {
  description: 'When the limit resets, at 00:00 UTC (weeks start on Monday); null: never.',
});
const requestsPerMinute = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], { description: "The key's own per-minute limit, below the plan's; null: the plan's." });
const name = Type.String({ minLength: 1, maxLength: 100 });

export const createKeySchema = Type.Object(
  {
    name,
    limit: Type.Optional(limit),
    limit_reset: Type.Optional(limitReset),
    include_byok_in_limit: Type.Optional(Type.Boolean()),
    expires_at: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()], { description: 'UTC ISO 8601 instant (ending in Z); null: never.' })),
    requests_per_minute: Type.Optional(requestsPerMinute),
  },
  { additionalProperties: false },
);

export const updateKeySchema = Type.Object(
  {
    name: Type.Optional(name),
    disabled: Type.Optional(Type.Boolean()),
    limit: Type.Optional(limit),
    limit_reset: Type.Optional(limitReset),
    include_byok_in_limit: Type.Optional(Type.Boolean()),
    requests_per_minute: Type.Optional(requestsPerMinute),
  },
  { additionalProperties: false },
);

/** Longest grace a rotation may give the old key: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400;

export const rotateKeySchema = Type.Object(
  { grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_GRACE_SECONDS, description: 'How long the old key keeps working; 0: revoked now.' })) },
  { additionalProperties: false },
);
