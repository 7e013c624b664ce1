/** The `router` CLI: commander program, exit codes 0 ok, 1 operational failure, 2 bad arguments. */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { formatConfigProblem } from '../config/config-error.js';
import { registerAccountCommands } from './commands/accounts.js';
import { registerAuditCommand } from './commands/audit.js';
import { registerCheckCommand } from './commands/check.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerProbeCommand } from './commands/probe.js';
import { registerProviderKeyCommands } from './commands/provider-keys.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSupportBundleCommand } from './commands/support-bundle.js';
import { registerTeamCommands } from './commands/teams.js';
import { registerUsageCommand } from './commands/usage.js';
import { registerWorkspaceCommands } from './commands/workspaces.js';
import { registerPresetCommands } from './commands/presets.js';

function createProgram(): Command {
  const program = new Command('router')
    .description('Hosted LLM routing API: serve, check configuration, probe, and manage accounts and keys')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  registerServeCommand(program);
  registerCheckCommand(program);
  registerMigrateCommand(program);
  registerProbeCommand(program);
  registerAccountCommands(program);
  registerTeamCommands(program);
  registerKeyCommands(program);
  registerProviderKeyCommands(program);
  registerWorkspaceCommands(program);
  registerPresetCommands(program);
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
    const failure = describeFailure(error);
    if (!failure) return;
    process.exitCode = failure.exitCode;
    // --json promises exactly one JSON document on stdout, failures included.
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: failure.document })}\n`);
  }
}

interface Failure {
  exitCode: number;
  document: { type: 'usage' | 'config' | 'failure'; message: string; problems?: string[] };
}

/** Reports the failure on stderr (commander has already reported its own) and says how to exit. */
function describeFailure(error: unknown): Failure | undefined {
  if (error instanceof CommanderError) {
    // Help and version are not failures; every other commander error is a usage error (already printed).
    if (error.exitCode === 0) return undefined;
    return { exitCode: 2, document: { type: 'usage', message: error.message.replace(/^error: /, '') } };
  }
  if (error instanceof ConfigError) {
    const problems = error.problems.map(formatConfigProblem);
    const message = `configuration is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'})`;
    for (const problem of problems) process.stderr.write(`${problem}\n`);
    process.stderr.write(`router: ${message}\n`);
    return { exitCode: 1, document: { type: 'config', message, problems } };
  }
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  process.stderr.write(`router: ${reason}\n`);
  return { exitCode: 1, document: { type: 'failure', message: reason } };
}

await main();
