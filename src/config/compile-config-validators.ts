/**
 * The one ajv set-up for the config files' schemas, used two ways: compiled in memory when no
 * precompiled module exists (tests running from src/), and written out as standalone code by
 * scripts/compile-config-validators.mjs at build time, so `router check` and `router serve` start
 * without TypeBox and without ajv's compiler (about 250 ms of a CLI start).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';
import { CONFIG_FILE_NAMES, type ConfigFileName } from './config-files.js';
import { PATTERN_MEANING } from './describe-schema-error.js';
import { CONFIG_FILE_SCHEMAS } from './schemas/index.js';

export type ConfigValidators = ReadonlyMap<ConfigFileName, ValidateFunction>;

function configAjv(source: boolean): Ajv2020 {
  // verbose: errors carry their parent schema, which lists the known keys for "did you mean".
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: true, verbose: true, code: { source, esm: true } });
  // Annotation only: says in words what a `pattern` means, for messages (see describe-schema-error.ts).
  ajv.addKeyword({ keyword: PATTERN_MEANING, schemaType: 'string' });
  for (const name of CONFIG_FILE_NAMES) ajv.addSchema(CONFIG_FILE_SCHEMAS[name], name);
  return ajv;
}

export function compileConfigValidators(): ConfigValidators {
  const ajv = configAjv(false);
  return new Map(CONFIG_FILE_NAMES.map((name) => [name, ajv.getSchema(name) as ValidateFunction]));
}

/**
 * An ES module exporting one validator per file name (`export const server = …`). ajv's ES output
 * still calls require() for its runtime helpers (ucs2length for string lengths), so it gets one.
 */
export function configValidatorsModule(): string {
  const prelude = "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";
  // ajv's standalone module is CommonJS: its function is the default export's `default` as well.
  return prelude + standalone.default(configAjv(true), Object.fromEntries(CONFIG_FILE_NAMES.map((name) => [name, name])));
}
