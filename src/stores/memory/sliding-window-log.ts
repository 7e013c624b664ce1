/**
 * The admission times of one account, oldest first, in a ring buffer holding at most `capacity` (the
 * per-minute limit) entries: older ones can never decide anything, since a full buffer already rejects.
 * The backing array grows on demand, so an account that sends little costs little.
 */
const INITIAL_SLOTS = 8;

export class SlidingWindowLog {
  #slots: Float64Array;
  #head = 0;
  #size = 0;
  #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#slots = new Float64Array(Math.min(capacity, INITIAL_SLOTS));
  }

  get size(): number {
    return this.#size;
  }

  get oldest(): number | null {
    return this.#size === 0 ? null : (this.#slots[this.#head] ?? null);
  }

  /** A plan change: keep the newest entries that fit, so a downgrade starts from the recent history. */
  setCapacity(capacity: number): void {
    if (capacity === this.#capacity) return;
    this.#capacity = capacity;
    const kept = Math.min(this.#size, capacity);
    this.#relayout(Math.min(capacity, Math.max(kept, INITIAL_SLOTS)), kept);
  }

  /** Forget admissions at or before `cutoffMs` (they are outside the half-open window). */
  dropThrough(cutoffMs: number): void {
    while (this.#size > 0 && (this.#slots[this.#head] ?? Number.POSITIVE_INFINITY) <= cutoffMs) {
      this.#head = (this.#head + 1) % this.#slots.length;
      this.#size -= 1;
    }
  }

  /** Callers push only while size < capacity. */
  push(atMs: number): void {
    if (this.#size === this.#slots.length) this.#relayout(Math.min(this.#capacity, this.#slots.length * 2), this.#size);
    this.#slots[(this.#head + this.#size) % this.#slots.length] = atMs;
    this.#size += 1;
  }

  /** Copies the newest `keep` entries, oldest first, into a fresh array of `length` slots. */
  #relayout(length: number, keep: number): void {
    const next = new Float64Array(length);
    const skip = this.#size - keep;
    for (let i = 0; i < keep; i++) next[i] = this.#slots[(this.#head + skip + i) % this.#slots.length] ?? 0;
    this.#slots = next;
    this.#head = 0;
    this.#size = keep;
  }
}
