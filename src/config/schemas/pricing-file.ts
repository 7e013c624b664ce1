/** schemas/pricing.schema.json is generated from this definition (npm run schemas); edit here, never there. */
import { Type, type Static } from '@sinclair/typebox';
import { FileSchema, StringMap } from './schema-builders.js';

export const PricingFileSchema = FileSchema(
  'pricing.yaml',
  'Presentation for GET /pricing; limits and prices come from plans.yaml.',
  {
    currency: Type.String({
      description: 'ISO 4217 code.',
      pattern: '^[A-Z]{3}$',
      'x-pattern-meaning': 'a three-letter currency code such as USD',
    }),
    features: StringMap(Type.Array(Type.String({ minLength: 1 })), { description: 'Marketing lines per plan id (plans.yaml).', default: {} }),
  });

export type RawPricingFile = Static<typeof PricingFileSchema>;
