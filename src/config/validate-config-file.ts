import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { CONFIG_FILE_NAMES, type ConfigFileName } from './config-files.js';
import { describeSchemaError, PATTERN_MEANING } from './describe-schema-error.js';
import type { PointedProblem } from './locate-pointer.js';
import { CONFIG_FILE_SCHEMAS } from './schemas/index.js';

// Compiling is the slow part of ajv, so the schemas are compiled once per process. Sharing is safe:
// validation is synchronous, and `errors` is read right after each call.
let validators: ReadonlyMap<ConfigFileName, ValidateFunction> | undefined;

/**
 * Validates one file's data against its schema (schemas/<file>-file.ts, the definition schemas/*.json is
 * generated from), filling schema defaults into `data` in place. Every error is returned (ajv
 * `allErrors`), addressed by JSON pointer.
 */
export function validateConfigFile(name: ConfigFileName, data: unknown): PointedProblem[] {
  const validate = compiledValidators().get(name);
  if (!validate) throw new Error(`no schema for ${name}.yaml`);
  if (validate(data)) return [];
  return (validate.errors ?? []).flatMap((error) => describeSchemaError(error) ?? []);
}

function compiledValidators(): ReadonlyMap<ConfigFileName, ValidateFunction> {
  if (!validators) {
    // verbose: errors carry their parent schema, which lists the known keys for "did you mean".
    const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: true, verbose: true });
    // Annotation only: says in words what a `pattern` means, for messages (see describe-schema-error.ts).
    ajv.addKeyword({ keyword: PATTERN_MEANING, schemaType: 'string' });
    validators = new Map(CONFIG_FILE_NAMES.map((name) => [name, ajv.compile(CONFIG_FILE_SCHEMAS[name])]));
  }
  return validators;
}
