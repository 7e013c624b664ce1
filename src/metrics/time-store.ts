/**
 * Wraps a store (a plain object of async methods) so each call's latency lands in the store-duration
 * histogram, labelled by the method's name: a closed set, the interface's own.
 */
import type { Histogram } from 'prom-client';

export function timeStore<T extends object>(store: T, histogram: Histogram<'store' | 'operation'>, storeLabel: string): T {
  const timed: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(store)) {
    if (typeof member !== 'function') {
      timed[name] = member;
      continue;
    }
    const method = member as (...args: unknown[]) => unknown;
    timed[name] = async (...args: unknown[]) => {
      const end = histogram.startTimer({ store: storeLabel, operation: name });
      try {
        return await method.apply(store, args);
      } finally {
        end();
      }
    };
  }
  return timed as T;
}
