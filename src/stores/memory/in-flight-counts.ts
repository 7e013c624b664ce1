/**
 * Requests in flight per account, counted in one process. An account appears only while it has a
 * request in flight, so the map is bounded by the requests in flight, not by the accounts ever seen.
 * Synchronous, so the cluster's primary can decide a whole batch of questions in one step.
 */
export class InFlightCounts {
  readonly #counts = new Map<string, number>();

  /** Takes a slot if the account has fewer than `limit` in flight; returns the count after the decision. */
  tryTake(accountId: string, limit: number): { allowed: boolean; inFlight: number } {
    const count = this.#counts.get(accountId) ?? 0;
    if (count >= limit) return { allowed: false, inFlight: count };
    this.#counts.set(accountId, count + 1);
    return { allowed: true, inFlight: count + 1 };
  }

  /** Gives one slot back (callers give back only what they took, once). */
  give(accountId: string): void {
    const count = (this.#counts.get(accountId) ?? 0) - 1;
    if (count > 0) this.#counts.set(accountId, count);
    else this.#counts.delete(accountId);
  }

  inFlight(accountId: string): number {
    return this.#counts.get(accountId) ?? 0;
  }

  clear(): void {
    this.#counts.clear();
  }
}
