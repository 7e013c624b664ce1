/**
 * Commands are defined (names, options, help) when the CLI starts, but the code an action runs is
 * imported only when it runs: `router --help` loads commander and the definitions, `router check` the
 * config check, and neither the stores, the server nor the probe (issue 35: start-up ≤ 0.35 s).
 */
import type { Command } from 'commander';

// commander passes an action its arguments, then its options, then the command; `this` is the command too.
type Action = (this: Command, ...args: any[]) => unknown;

/** An action that imports `load()`'s module when it runs and calls its export `name`, `this` and arguments unchanged. */
export function lazyAction<K extends string>(load: () => Promise<Record<K, Action>>, name: K): (this: Command, ...args: unknown[]) => Promise<void> {
  return async function (this: Command, ...args: unknown[]): Promise<void> {
    const module = await load();
    await module[name].apply(this, args);
  };
}
