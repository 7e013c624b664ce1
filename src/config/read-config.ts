import { statSync } from 'node:fs';
import { join } from 'node:path';
import { anchorSqlitePath } from './anchor-sqlite-path.js';
import { applyEnvOverrides } from './apply-env-overrides.js';
import { assembleRouterConfig } from './assemble-router-config.js';
import { legalPageProblems } from './legal-page-checks.js';
import type { ConfigProblem } from './config-error.js';
import { CONFIG_FILE_NAMES, type ConfigFileName, type RawConfigFiles } from './config-files.js';
import { crossCheck } from './cross-check.js';
import { deepFreeze } from './deep-freeze.js';
import type { PointedProblem } from './locate-pointer.js';
import { fusionWarnings } from './fusion-warnings.js';
import { priceWarnings } from './price-warnings.js';
import { teamLimitWarnings } from './team-limit-warnings.js';
import { providerPolicyWarnings } from './concrete-model-checks.js';
import { outputLimitWarnings } from './output-limit-checks.js';
import { readYamlFile, type YamlFile } from './read-yaml-file.js';
import { resolveEnvReferences } from './resolve-env-references.js';
import type { RouterConfig } from './types.js';
import { validateConfigFile } from './validate-config-file.js';

/** The file name used for problems in environment overrides, which have no line. */
const ENV_PROBLEM_FILE = 'env';

export interface ConfigReading {
  /** Present only when there are no problems; deeply frozen. */
  config: RouterConfig | undefined;
  /** Every problem in every file, in file order (server … pricing, then env), then by position. */
  problems: ConfigProblem[];
  /** What does not stop the router but an operator should fix (routed models without a price). */
  warnings: ConfigProblem[];
}

interface CheckedFile {
  data: unknown;
  /** The data passed its schema, so cross-file checks may rely on its shape. */
  wellFormed: boolean;
  problems: ConfigProblem[];
}

/**
 * The whole pipeline, collecting problems instead of stopping at the first: parse each file with
 * positions, resolve `${VAR}` references, apply environment overrides (server.yaml), validate
 * against the schema (filling defaults), cross-check references between files, then assemble and
 * freeze.
 */
export function readConfig(dir: string, env: NodeJS.ProcessEnv): ConfigReading {
  // One problem for a directory that is not there, rather than "file not found" for each of its files.
  const missing = missingDirectory(dir);
  if (missing) return { config: undefined, problems: [missing], warnings: [] };
  const files = new Map<ConfigFileName, YamlFile>();
  const wellFormed: Partial<Record<ConfigFileName, unknown>> = {};
  const problems: ConfigProblem[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    const file = readYamlFile(join(dir, `${name}.yaml`));
    files.set(name, file);
    problems.push(...file.problems);
    if (file.problems.length > 0) continue;
    const checked = checkFile(dir, name, file, env);
    problems.push(...checked.problems);
    if (checked.wellFormed) wellFormed[name] = checked.data;
  }
  // Safe: only data that passed its file's schema is in wellFormed.
  const valid = wellFormed as Partial<RawConfigFiles>;
  for (const { file, ...problem } of [...crossCheck(valid), ...legalPageProblems(dir, valid)]) {
    const yamlFile = files.get(file);
    if (yamlFile) problems.push(located(yamlFile, problem));
  }
  const warnings: ConfigProblem[] = [];
  for (const { file, ...warning } of [...priceWarnings(valid), ...fusionWarnings(valid), ...outputLimitWarnings(valid), ...teamLimitWarnings(valid)]) {
    const yamlFile = files.get(file);
    if (yamlFile) warnings.push(located(yamlFile, warning));
  }
  // A provider without a data policy is never chosen for a request that states one.
  for (const { file, ...warning } of providerPolicyWarnings(valid)) warnings.push(located(files.get(file)!, warning));
  const ordered = orderProblems(dir, problems);
  if (ordered.length > 0) return { config: undefined, problems: ordered, warnings };
  return { config: deepFreeze(assembleRouterConfig(dir, valid as RawConfigFiles)), problems: [], warnings };
}

function checkFile(dir: string, name: ConfigFileName, file: YamlFile, env: NodeJS.ProcessEnv): CheckedFile {
  const resolved = resolveEnvReferences(file.data, env);
  const overridden = name === 'server' ? applyEnvOverrides(resolved.data, env) : new Map<string, string>();
  if (name === 'server' && !overridden.has('/storage')) anchorSqlitePath(resolved.data, dir);
  // An override replaces the value, unset reference and all.
  const referenceProblems = resolved.problems.filter((problem) => !overridden.has(problem.pointer));
  // An unset reference already has its problem; the schema's complaint about the same value adds nothing.
  const unresolved = new Set(referenceProblems.map((problem) => problem.pointer));
  const schemaProblems = validateConfigFile(name, resolved.data).filter((problem) => !unresolved.has(problem.pointer));
  const problems = [...referenceProblems, ...schemaProblems].map((problem) => {
    const variable = overridden.get(problem.pointer);
    if (variable === undefined) return located(file, problem);
    return { file: ENV_PROBLEM_FILE, line: 0, column: 0, message: `${variable}: ${problem.message}` };
  });
  return { data: resolved.data, wellFormed: schemaProblems.length === 0, problems };
}

function missingDirectory(dir: string): ConfigProblem | undefined {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (isDirectory) return undefined;
  return { file: dir, line: 0, column: 0, message: 'configuration directory not found: pass --config <dir> or set ROUTER_CONFIG to the directory holding server.yaml, plans.yaml and the rest' };
}

function located(file: YamlFile, problem: PointedProblem): ConfigProblem {
  const { line, column } = file.locate(problem.pointer, problem.target);
  return { file: file.path, line, column, message: problem.message };
}

function orderProblems(dir: string, problems: readonly ConfigProblem[]): ConfigProblem[] {
  const order = [...CONFIG_FILE_NAMES.map((name) => join(dir, `${name}.yaml`)), ENV_PROBLEM_FILE];
  const rank = (problem: ConfigProblem): number => order.indexOf(problem.file);
  return [...problems].sort((a, b) => rank(a) - rank(b) || a.line - b.line || a.column - b.column);
}
