/**
 * The usage ledger's writer. `append` only pushes onto an in-memory queue, so the request path never
 * waits on the database; batches are written off it, every `flushIntervalMs` or as soon as a full batch
 * is queued, one at a time. A batch that fails stays queued and is retried at the next interval.
 *
 * Bounds: at most `maxQueued` records wait. Past it the ledger is "behind": records of BYOK requests are
 * dropped (counted, logged, in /readyz and metrics), while records that settle managed spend are kept,
 * because the spend gate refuses new managed requests while the ledger is behind, so only requests
 * already in flight can add to them. Worst case on a hard crash (SIGKILL, power loss): the records of
 * requests that finished within the last flush interval, plus a batch being written.
 */
import type { ConsolaInstance } from 'consola';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/describe-error.js';
import type { LedgerRecord, LedgerStore } from '../stores/ledger-store.js';

export interface UsageLedgerOptions {
  store: LedgerStore;
  flushIntervalMs: number;
  batchSize: number;
  maxQueued: number;
  clock: Clock;
  logger: ConsolaInstance;
  /** Told about every batch written or failed (metrics). */
  onFlush?(outcome: { ok: boolean; records: number; seconds: number }): void;
  /** Told about every record dropped past the bound (metrics). */
  onDrop?(count: number): void;
}

export type UsageLedgerState = 'ok' | 'behind' | 'failing';

export interface UsageLedgerStatus {
  /** `behind`: the queue reached its bound; `failing`: the last write failed (records wait and are retried). */
  state: UsageLedgerState;
  queued: number;
  maxQueued: number;
  /** Records dropped past the bound since start. */
  dropped: number;
  written: number;
  lastFlushAt: string | null;
  lastError: string | null;
}

export class UsageLedger {
  readonly #options: UsageLedgerOptions;
  readonly #queue: LedgerRecord[] = [];
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> | undefined;
  #behind = false;
  #failing = false;
  #dropped = 0;
  #droppedSinceBehind = 0;
  #written = 0;
  #lastFlushAt: string | null = null;
  #lastError: string | null = null;
  #closed = false;

  constructor(options: UsageLedgerOptions) {
    this.#options = options;
    this.#timer = setInterval(() => void this.#kick(), options.flushIntervalMs);
    this.#timer.unref();
  }

  /** Queue a request's records (several for a request that made several upstream calls). Never waits, never throws. */
  append(records: readonly LedgerRecord[]): void {
    for (const record of records) {
      if (this.#queue.length >= this.#options.maxQueued) {
        this.#enterBehind();
        if (record.reservationId === null) {
          this.#dropped += 1;
          this.#droppedSinceBehind += 1;
          this.#options.onDrop?.(1);
          continue;
        }
      }
      this.#queue.push(record);
    }
    if (this.#queue.length >= this.#options.batchSize) void this.#kick();
  }

  /**
   * Records of a request still waiting to be written (a batch being written stays queued until it is),
   * the account's only: the receipt reads them here until they are in the store, so it never misses one.
   */
  queued(requestId: string, accountId: string): LedgerRecord[] {
    return this.#queue.filter((record) => record.requestId === requestId && record.accountId === accountId);
  }

  /** True while the queue is at its bound: the spend gate refuses managed requests then. */
  get behind(): boolean {
    return this.#behind;
  }

  status(): UsageLedgerStatus {
    return {
      state: this.#failing ? 'failing' : this.#behind ? 'behind' : 'ok',
      queued: this.#queue.length,
      maxQueued: this.#options.maxQueued,
      dropped: this.#dropped,
      written: this.#written,
      lastFlushAt: this.#lastFlushAt,
      lastError: this.#lastError,
    };
  }

  /** Write everything queued now (tests, shutdown). Resolves when the queue is empty or a write failed. */
  async flush(): Promise<void> {
    for (;;) {
      await this.#kick(true);
      if (this.#queue.length === 0 || this.#failing) return;
    }
  }

  /** Stop the timer and write what is queued, giving up after `timeoutMs` (logged with what was lost). */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const result = await Promise.race([this.flush(), gaveUp]);
    clearTimeout(timer);
    if (result === 'timeout' || this.#queue.length > 0) {
      this.#options.logger.error(`usage ledger: ${this.#queue.length} records could not be written before shutdown (${this.#lastError ?? 'timed out'})`);
    }
  }

  /** Start a drain unless one runs; `all` drains below a full batch too. */
  #kick(all = false): Promise<void> {
    this.#flushing ??= this.#drain(all).finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #drain(all: boolean): Promise<void> {
    do {
      const batch = this.#queue.slice(0, this.#options.batchSize);
      if (batch.length === 0) return;
      if (!(await this.#write(batch))) return;
      this.#queue.splice(0, batch.length);
      this.#leaveBehindWhenDrained();
    } while (this.#queue.length >= this.#options.batchSize || (all && this.#queue.length > 0));
  }

  async #write(batch: LedgerRecord[]): Promise<boolean> {
    const started = performance.now();
    try {
      await this.#options.store.writeBatch(batch);
    } catch (error) {
      this.#lastError = describeError(error);
      this.#options.onFlush?.({ ok: false, records: batch.length, seconds: (performance.now() - started) / 1000 });
      if (!this.#failing) this.#options.logger.warn(`usage ledger: writing ${batch.length} records failed (${this.#lastError}); they stay queued and are retried`);
      this.#failing = true;
      return false;
    }
    this.#options.onFlush?.({ ok: true, records: batch.length, seconds: (performance.now() - started) / 1000 });
    if (this.#failing) this.#options.logger.info(`usage ledger: writing again (${this.#queue.length} records were waiting)`);
    this.#failing = false;
    this.#lastError = null;
    this.#written += batch.length;
    this.#lastFlushAt = new Date(this.#options.clock.now()).toISOString();
    return true;
  }

  #enterBehind(): void {
    if (this.#behind) return;
    this.#behind = true;
    this.#droppedSinceBehind = 0;
    this.#options.logger.warn(
      `usage ledger is behind: ${this.#queue.length} records wait for the database; records of BYOK requests are dropped and managed-access requests refused until it catches up`,
    );
  }

  /** Back to normal once half the bound is free again (hysteresis, so the state does not flap). */
  #leaveBehindWhenDrained(): void {
    if (!this.#behind || this.#queue.length > this.#options.maxQueued / 2) return;
    this.#behind = false;
    this.#options.logger.info(`usage ledger caught up (${this.#droppedSinceBehind} records of BYOK requests were dropped meanwhile)`);
  }
}
