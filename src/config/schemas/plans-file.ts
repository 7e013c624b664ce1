/** schemas/plans.schema.json is generated from this definition (npm run schemas); edit here, never there. */
import { Type, type Static } from '@sinclair/typebox';
import { ConfigObject, FileSchema, OneOf } from './schema-builders.js';

/** Tools and features an upstream runs and bills per call, by the names pricing.yaml prices them under. */
export const SERVER_TOOL_NAMES = ['web_search', 'web_fetch', 'code_execution', 'mcp', 'file_search', 'image_generation', 'computer_use'] as const;

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
      cacheHitsCountAgainstQuota: Type.Boolean({
        description: 'Whether an answer from the response cache counts against monthly requests (docs/caching.md). Hits always count against requestsPerMinute and never against spend.',
        default: true,
      }),
      maxMembers: Type.Optional(Type.Integer({
        description: 'People an organization on this plan may have (members plus pending invitations); one more invitation is refused. Absent: no limit (docs/teams.md).',
        minimum: 1,
      })),
      maxWorkspaces: Type.Optional(Type.Integer({
        description: 'Workspaces one organization on this plan may have, its default included; creating one more is refused. Absent: no limit.',
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
      managedServerTools: Type.Optional(ConfigObject({
        allow: Type.Array(OneOf(SERVER_TOOL_NAMES), {
          description: 'Server tools (Anthropic web_search, web_fetch, code execution and its container, MCP connectors; OpenAI hosted Responses tools) a request may use on operator-managed provider keys, each priced per call in pricing.yaml serverToolPrices. Any other is refused with 403 server_tool_not_allowed; requests on the account\'s own provider keys are never limited.',
          uniqueItems: true,
          default: [],
        }),
        maxCallsPerRequest: Type.Integer({
          description: 'Most calls of the allowed tools one request may make on managed keys: a request asking for more (max_uses, max_tool_calls) is lowered to it, one naming none is sent with it, and the spend cap holds this many calls at the dearest price before the request.',
          minimum: 1,
          maximum: 100,
          default: 5,
        }),
      }, { description: 'Server tools on operator-managed provider keys (docs/usage.md). Absent: none; requests asking for one are refused.' })),
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
