/**
 * Keeps raw usage records for `retentionDays` and drops expired spend reservations, in the background:
 * once shortly after start, then hourly, deleting in bounded steps so no statement holds the tables long.
 * Rollups are kept, so reports over older days stay exact. Several instances pruning at once is harmless.
 */
import type { ConsolaInstance } from 'consola';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/describe-error.js';
import type { LedgerStore } from '../stores/ledger-store.js';

const STEP = 5000;
const HOUR_MS = 3_600_000;

export function startLedgerPruner(options: { store: LedgerStore; retentionDays: number; clock: Clock; logger: ConsolaInstance; firstRunMs?: number }): {
  stop(): void;
  /** Prune now (tests, operators); resolves with what was deleted. */
  run(): Promise<{ records: number; reservations: number }>;
} {
  const run = async () => {
    const nowMs = options.clock.now();
    const cut = { recordsBefore: new Date(nowMs - options.retentionDays * 86_400_000).toISOString(), now: new Date(nowMs).toISOString(), limit: STEP };
    const total = { records: 0, reservations: 0 };
    for (;;) {
      const step = await options.store.prune(cut);
      total.records += step.records;
      total.reservations += step.reservations;
      if (step.records < STEP) return total;
    }
  };
  const guarded = () =>
    void run().catch((error: unknown) => options.logger.warn(`usage ledger: pruning old records failed (${describeError(error)}); retried in an hour`));
  const first = setTimeout(guarded, options.firstRunMs ?? 30_000);
  const hourly = setInterval(guarded, HOUR_MS);
  first.unref();
  hourly.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(hourly);
    },
    run,
  };
}
