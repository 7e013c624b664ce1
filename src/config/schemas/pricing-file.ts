/** schemas/pricing.schema.json is generated from this definition (npm run schemas); edit here, never there. */
import { Type, type Static } from '@sinclair/typebox';
import { FileSchema, StringMap } from './schema-builders.js';
import { SERVER_TOOL_NAMES } from './plans-file.js';

export const PricingFileSchema = FileSchema(
  'pricing.yaml',
  'Presentation for GET /pricing (limits and prices come from plans.yaml), and the per-call prices of server tools.',
  {
    currency: Type.String({
      description: 'ISO 4217 code.',
      pattern: '^[A-Z]{3}$',
      'x-pattern-meaning': 'a three-letter currency code such as USD',
    }),
    serverToolPrices: StringMap(StringMap(Type.Number({ minimum: 0 }), { propertyNames: { enum: [...SERVER_TOOL_NAMES] } }), {
      description: 'USD per call of a server tool (web_search, web_fetch, code_execution, mcp, file_search, image_generation, computer_use) per provider id (providers.yaml), as the provider bills it (Anthropic web search: 0.01). What the usage ledger and usage.cost add for the calls an upstream reports; a tool a plan allows on managed keys is refused while no provider of the route prices it; prices for a provider providers.yaml lacks are never read.',
      default: {},
    }),
    features: StringMap(Type.Array(Type.String({ minLength: 1 })), { description: 'Marketing lines per plan id (plans.yaml).', default: {} }),
  });

export type RawPricingFile = Static<typeof PricingFileSchema>;
