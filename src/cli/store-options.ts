/** Options every store-backed command takes; apart from cli-context.ts so defining a command opens nothing. */
import type { Command } from 'commander';

export interface StoreCommandOptions {
  json?: boolean;
  config?: string;
}

export function withStoreOptions(command: Command): Command {
  return command.option('--json', 'print one JSON document').option('--config <dir>', 'configuration directory');
}
