/**
 * Every config file's schema, by file name: what validate-config-file.ts compiles, and what
 * scripts/write-schemas.mjs writes to schemas/<name>.schema.json for operators' editors and the docs.
 */
import type { TObject } from '@sinclair/typebox';
import type { ConfigFileName } from '../config-files.js';
import { CatalogFileSchema } from './catalog-file.js';
import { PlansFileSchema } from './plans-file.js';
import { PricingFileSchema } from './pricing-file.js';
import { ProvidersFileSchema } from './providers-file.js';
import { RoutesFileSchema } from './routes-file.js';
import { ServerFileSchema } from './server-file.js';

export const CONFIG_FILE_SCHEMAS: Readonly<Record<ConfigFileName, TObject>> = {
  server: ServerFileSchema,
  plans: PlansFileSchema,
  routes: RoutesFileSchema,
  providers: ProvidersFileSchema,
  catalog: CatalogFileSchema,
  pricing: PricingFileSchema,
};

/** Keys first in this order, so a generated file reads like a hand-written one; the rest keep theirs. */
const LEADING_KEYS = ['$schema', 'title', 'description', 'type', 'additionalProperties', 'required', 'properties'];
/** Objects under these keys are maps or data, not schemas: their key order is the definition's (ajv checks properties in it). */
const KEEP_ORDER_UNDER = new Set(['properties', '$defs', 'default', 'const', 'enum']);

/**
 * The text of schemas/<name>.schema.json: two-space JSON, keys in reading order, non-ASCII escaped so
 * the files stay ASCII. TypeBox's own markers are symbol keys, which JSON never sees.
 */
export function renderSchemaFile(schema: object): string {
  const json = JSON.stringify(schema, (key, value: unknown) => (isPlainObject(value) && !KEEP_ORDER_UNDER.has(key) ? inReadingOrder(value) : value), 2);
  return `${json.replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

function inReadingOrder(object: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(object);
  const leading = LEADING_KEYS.filter((key) => key in object);
  const ordered: Record<string, unknown> = {};
  for (const key of [...leading, ...keys.filter((key) => !LEADING_KEYS.includes(key))]) ordered[key] = object[key];
  return ordered;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
