import type { ValidateFunction } from 'ajv/dist/2020.js';
import { CONFIG_FILE_NAMES, type ConfigFileName } from './config-files.js';
import { describeSchemaError } from './describe-schema-error.js';
import type { PointedProblem } from './locate-pointer.js';

/**
 * Compiling is the slow part of ajv, so the build writes the validators out as code
 * (dist/config/config-validators.js, by scripts/compile-config-validators.mjs) and a process loads them;
 * where they were never written (tests running from src/) the same schemas are compiled here, once per
 * process. Sharing is safe: validation is synchronous, and `errors` is read right after each call.
 */
const validators: ReadonlyMap<ConfigFileName, ValidateFunction> = await loadValidators();

async function loadValidators(): Promise<ReadonlyMap<ConfigFileName, ValidateFunction>> {
  const precompiledPath = './config-validators.js'; // a variable: the file exists in dist/ only
  const precompiled = (await import(precompiledPath).catch(() => undefined)) as Record<ConfigFileName, ValidateFunction> | undefined;
  if (precompiled) return new Map(CONFIG_FILE_NAMES.map((name) => [name, precompiled[name]]));
  const { compileConfigValidators } = await import('./compile-config-validators.js');
  return compileConfigValidators();
}

/**
 * Validates one file's data against its schema (schemas/<file>-file.ts, the definition schemas/*.json is
 * generated from), filling schema defaults into `data` in place. Every error is returned (ajv
 * `allErrors`), addressed by JSON pointer.
 */
export function validateConfigFile(name: ConfigFileName, data: unknown): PointedProblem[] {
  const validate = validators.get(name);
  if (!validate) throw new Error(`no schema for ${name}.yaml`);
  if (validate(data)) return [];
  return (validate.errors ?? []).flatMap((error) => describeSchemaError(error) ?? []);
}
