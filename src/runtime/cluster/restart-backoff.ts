/**
 * How long the primary waits before replacing a worker that exited on its own: doubling from `baseMs`
 * with each crash in a row, up to `maxMs`, so a worker that crashes at once every time cannot spin the
 * machine. A worker that ran `stableMs` or longer before exiting starts the count over.
 */
export interface RestartBackoffOptions {
  baseMs?: number;
  maxMs?: number;
  stableMs?: number;
}

export class RestartBackoff {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #stableMs: number;
  #crashesInARow = 0;

  constructor(options: RestartBackoffOptions = {}) {
    this.#baseMs = options.baseMs ?? 100;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#stableMs = options.stableMs ?? 60_000;
  }

  /** The wait before replacing a worker that exited after running `uptimeMs`. */
  next(uptimeMs: number): number {
    if (uptimeMs >= this.#stableMs) this.#crashesInARow = 0;
    const delay = Math.min(this.#maxMs, this.#baseMs * 2 ** this.#crashesInARow);
    if (delay < this.#maxMs) this.#crashesInARow += 1;
    return delay;
  }
}
