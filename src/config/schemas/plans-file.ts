/** schemas/plans.schema.json is generated from this definition (npm run schemas); edit here, never there. */
import { Type, type Static } from '@sinclair/typebox';
import { ConfigObject, FileSchema } from './schema-builders.js';

export const PlansFileSchema = FileSchema(
  'plans.yaml',
  'Plans: monthly request quota, requests per minute, route profiles allowed, price.',
  {
    plans: Type.Array(ConfigObject({
      id: Type.String({
        description: 'Stable plan id, used in URLs (checkout?plan=) and stored on accounts.',
        pattern: '^[a-z0-9][a-z0-9_-]*$',
        'x-pattern-meaning': 'lowercase letters, digits, - and _',
      }),
      name: Type.String({ minLength: 1 }),
      monthlyRequests: Type.Integer({ description: 'Monthly request quota.', minimum: 0 }),
      requestsPerMinute: Type.Integer({ minimum: 1 }),
      maxConcurrentRequests: Type.Optional(Type.Integer({
        description: 'Model requests one account may have in flight at once (all its keys, every worker and instance); one more is refused with 429 concurrency_limit_exceeded. Absent: requestsPerMinute / 6, rounded up (the plan\'s full per-minute rate with answers of about 10 s).',
        minimum: 1,
      })),
      routeProfiles: Type.Array(Type.String({ minLength: 1 }), { description: 'Ids of route profiles (routes.yaml) the plan may call.', uniqueItems: true }),
      priceUsdMonthly: Type.Number({ minimum: 0 }),
      managedSpendCapUsd: Type.Optional(Type.Number({
        description: 'Spend cap for operator-managed provider access; absent means the plan never uses it.',
        minimum: 0,
      })),
      stripePriceId: Type.Optional(Type.String({
        description: 'Stripe price (price_…, a recurring monthly price) a subscription to this plan uses. Required for every paid plan when billing.provider is stripe.',
        pattern: '^price_[A-Za-z0-9_]+$',
        'x-pattern-meaning': 'a Stripe price id, price_…',
      })),
      maxOutputTokens: Type.Optional(Type.Integer({
        description: 'Most output tokens one request may ask for (max_tokens, max_completion_tokens, max_output_tokens); a request that asks for none gets this cap. Absent: no cap beyond the API\'s own bound.',
        minimum: 1,
        maximum: 1000000,
      })),
      models: ConfigObject({
        allow: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
        deny: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      }, {
        description: 'Concrete models (catalog.yaml concreteModels) the plan may call, as exact ids or globs (* matches any run of characters); deny wins over allow. Absent: none.',
        default: { allow: [], deny: [] },
      }),
    }), { minItems: 1 }),
  });

export type RawPlansFile = Static<typeof PlansFileSchema>;
