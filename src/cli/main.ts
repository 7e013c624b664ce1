/** The `router` CLI: commander program, exit codes 0 ok, 1 operational failure, 2 bad arguments. */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { formatConfigProblem } from '../config/config-error.js';
import { NotFoundInStoreError } from '../stores/store.js';
import { CliFailure } from './cli-io.js';
import { registerAccountCommands } from './commands/accounts.js';
import { registerAuditCommand } from './commands/audit.js';
import { registerCheckCommand } from './commands/check.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerProbeCommand } from './commands/probe.js';
import { registerProviderKeyCommands } from './commands/provider-keys.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSupportBundleCommand } from './commands/support-bundle.js';
import { registerUsageCommand } from './commands/usage.js';

function createProgram(): Command {
  const program = new Command('router')
    .description('Hosted LLM routing API: serve, check configuration, probe, and manage accounts and keys')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  registerServeCommand(program);
  registerCheckCommand(program);
  registerProbeCommand(program);
  registerAccountCommands(program);
  registerKeyCommands(program);
  registerProviderKeyCommands(program);
  registerUsageCommand(program);
  registerAuditCommand(program);
  registerSupportBundleCommand(program);
  for (const command of program.commands) applyExitOverride(command);
  return program;
}

function applyExitOverride(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) applyExitOverride(sub);
}

async function main(): Promise<void> {
  try {
    await createProgram().parseAsync(process.argv);
  } catch (error) {
    process.exitCode = exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Help and version are not failures; every other commander error is a usage error (already printed).
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof ConfigError) {
    for (const problem of error.problems) process.stderr.write(`${formatConfigProblem(problem)}\n`);
    process.stderr.write(`router: configuration is invalid (${error.problems.length} problem${error.problems.length === 1 ? '' : 's'})\n`);
    return 1;
  }
  const reason = error instanceof CliFailure || error instanceof NotFoundInStoreError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`router: ${reason.split('\n')[0]}\n`);
  return 1;
}

await main();
