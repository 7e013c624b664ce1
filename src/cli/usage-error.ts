import type { Command } from 'commander';
import type { RouterConfig } from '../config/types.js';

/** Bad arguments: print the reason and (once, through showHelpAfterError) the command's usage, exit 2. */
export function usageError(command: Command, message: string): never {
  command.error(`error: ${message}`, { exitCode: 2, code: 'router.usage' });
}

export function requirePlan(command: Command, config: RouterConfig, plan: string): void {
  if (!config.plans.some((known) => known.id === plan)) {
    usageError(command, `unknown plan '${plan}' (plans: ${config.plans.map((p) => p.id).join(', ')})`);
  }
}

/** A non-negative whole number of seconds. */
export function parseSeconds(command: Command, value: string): number {
  if (!/^\d+$/.test(value)) usageError(command, `'${value}' is not a whole number of seconds`);
  return Number(value);
}
