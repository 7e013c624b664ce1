/** schemas/catalog.schema.json is generated from this definition (npm run schemas); edit here, never there. */
import { Type, type Static } from '@sinclair/typebox';
import { ConfigObject, FileSchema, OneOf } from './schema-builders.js';

export const CatalogFileSchema = FileSchema(
  'catalog.yaml',
  'Public discovery metadata (GET /model-catalog). Never lists upstream accounts or keys.',
  {
    families: Type.Array(ConfigObject({
      id: Type.String({
        description: 'Used in the catalog page path /model-catalog/{id}.',
        pattern: '^[a-z0-9][a-z0-9_-]*$',
        'x-pattern-meaning': 'lowercase letters, digits, - and _',
      }),
      title: Type.String({ minLength: 1 }),
      profile: Type.String({ description: 'A route profile id from routes.yaml.', minLength: 1 }),
      description: Type.String(),
      capabilities: ConfigObject({
        streaming: Type.Boolean(),
        tools: Type.Boolean(),
        responses: Type.Boolean(),
      }),
    })),
    models: Type.Array(ConfigObject({
      provider: Type.String({ description: 'A provider id from providers.yaml.', minLength: 1 }),
      model: Type.String({ description: 'The upstream model id, as route targets name it.', minLength: 1 }),
      maxOutputTokens: Type.Integer({ description: 'The most output tokens the model can produce in one answer.', minimum: 1 }),
      reasoning: Type.Optional(ConfigObject({
        minimal: Type.Optional(Type.Integer({ minimum: 0 })),
        low: Type.Optional(Type.Integer({ minimum: 0 })),
        medium: Type.Optional(Type.Integer({ minimum: 0 })),
        high: Type.Optional(Type.Integer({ minimum: 0 })),
        xhigh: Type.Optional(Type.Integer({ minimum: 0 })),
        levels: Type.Optional(Type.Boolean({
          description: 'Gemini 3: send thinkingConfig.thinkingLevel (the effort\'s name) instead of a token budget.',
        })),
      }, {
        description: 'The model reasons: the thinking budget (tokens) each reasoning effort turns into (Anthropic thinking.budget_tokens, Gemini thinkingConfig.thinkingBudget; OpenAI-format hosts take the effort by name, so {} is enough there). Absent: the model does not reason and reasoning fields are dropped for it.',
      })),
    }), {
      description: 'Published output-token limits per upstream model: a request\'s output cap above its served model\'s limit is lowered to it for that candidate.',
      default: [],
    }),
    concreteModels: Type.Optional(Type.Array(ConfigObject({
      id: Type.String({
        description: 'What clients put in model, e.g. openai/gpt-4.1.',
        pattern: '^[a-z0-9][a-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.:-]*$',
        'x-pattern-meaning': 'vendor/model, e.g. openai/gpt-4.1',
      }),
      name: Type.String({ minLength: 1 }),
      description: Type.String({ default: '' }),
      contextLength: Type.Integer({ description: 'Tokens of context the model takes.', minimum: 1 }),
      created: Type.Integer({ description: 'Unix seconds of the model\'s release (OpenAI\'s model object field).', minimum: 0 }),
      retryBudget: Type.Optional(Type.Integer({ description: 'Attempts after the first (default: one per further endpoint).', minimum: 0 })),
      kind: OneOf(['chat', 'embedding', 'rerank'], {
        description: 'What the model does: chat (chat completions, Responses, Messages), embedding (POST /v1/embeddings) or rerank (POST /v1/rerank). A model is served on its own kind\'s endpoint only; every endpoint must serve the same model, so failover never mixes vectors of different models.',
        default: 'chat',
      }),
      embedding: Type.Optional(ConfigObject({
        dimensions: Type.Integer({ description: 'Length of the vectors the model returns by default.', minimum: 1 }),
        shortenable: Type.Boolean({
          description: 'The model returns shorter vectors on request (`dimensions` below the default: OpenAI\'s text-embedding-3, Gemini\'s outputDimensionality); otherwise a request naming other dimensions is refused.',
          default: false,
        }),
        maxInputTokens: Type.Optional(Type.Integer({ description: 'Tokens one input may hold (published limit; shown in /v1/models).', minimum: 1 })),
      }, { description: 'kind: embedding only (required there): the vectors every endpoint of the model returns.' })),
      order: OneOf(['tiers', 'measured'], {
        description: 'tiers: endpoints in the order listed; measured: ranked by live figures.',
        default: 'tiers',
      }),
      endpoints: Type.Array(ConfigObject({
        provider: Type.String({ description: 'A provider id from providers.yaml.', minLength: 1 }),
        model: Type.String({ description: 'The upstream model name at that provider.', minLength: 1 }),
        weight: Type.Number({ exclusiveMinimum: 0, default: 1 }),
      }), { description: 'The providers that serve it, in order of preference.', minItems: 1 }),
    }), {
      description: 'Concrete models offered as models of their own (vendor/model), each routed across the providers that serve it; listed in /v1/models; plans allow them through models.',
    })),
  });

export type RawCatalogFile = Static<typeof CatalogFileSchema>;
