import { availableParallelism } from 'node:os';

/** `listen.workers` as a number: `auto` is one worker per core this process may use. */
export function workerCount(setting: number | 'auto', cores: () => number = availableParallelism): number {
  return setting === 'auto' ? Math.max(1, cores()) : setting;
}
