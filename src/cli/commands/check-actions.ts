/** What `router check` runs (defined in check.ts): the config readers and the precompiled validators, nothing else. */
import { checkConfig } from '../../config/check-config.js';
import { formatConfigProblem } from '../../config/config-error.js';
import { resolveConfigDir } from '../../config/resolve-config-dir.js';
import { emit, log } from '../cli-io.js';

export function check(options: { config?: string; json?: boolean }): void {
  const result = checkConfig(resolveConfigDir(options.config, process.env), process.env);
  emit(options, result, () => {
    for (const warning of result.warnings) process.stderr.write(`${formatConfigProblem(warning)} (warning)\n`);
    if (result.ok) log.success(result.summary);
    else for (const problem of result.problems) process.stderr.write(`${formatConfigProblem(problem)}\n`);
  });
  if (!result.ok) process.exitCode = 1;
}
