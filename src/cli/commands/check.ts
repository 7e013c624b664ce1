import type { Command } from 'commander';
import { formatConfigProblem } from '../../config/config-error.js';
import { resolveConfigDir } from '../../config/resolve-config-dir.js';
import { emit, log } from '../cli-io.js';

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('validate the configuration (schemas and cross-file references); exit 1 on any problem')
    .option('--config <dir>', 'configuration directory (default $ROUTER_CONFIG or ./config)')
    .option('--json', 'print one JSON document')
    .action(async (options: { config?: string; json?: boolean }) => {
      // The validators load only for this command (and serving), not for every CLI start.
      const { checkConfig } = await import('../../config/check-config.js');
      const result = checkConfig(resolveConfigDir(options.config, process.env), process.env);
      emit(options, result, () => {
        for (const warning of result.warnings) process.stderr.write(`${formatConfigProblem(warning)} (warning)\n`);
        if (result.ok) log.success(result.summary);
        else for (const problem of result.problems) process.stderr.write(`${formatConfigProblem(problem)}\n`);
      });
      if (!result.ok) process.exitCode = 1;
    });
}
