/**
 * One problem found in the configuration, with a 1-based position in its file. Problems without a
 * position in a YAML file (a missing file, an environment override) carry line 0 and column 0.
 */
export interface ConfigProblem {
  /** The file as the operator would type it (`config/routes.yaml`), or `env` for environment overrides. */
  file: string;
  line: number;
  column: number;
  message: string;
}

/** `file:line:column message`, the shape editors and terminals turn into links. */
export function formatConfigProblem(problem: ConfigProblem): string {
  return `${problem.file}:${problem.line}:${problem.column} ${problem.message}`;
}

/** Thrown by `loadConfig` with every problem found, so an operator fixes them in one pass. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(dir: string, problems: readonly ConfigProblem[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`Invalid configuration in ${dir} (${count}):\n${problems.map(formatConfigProblem).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
