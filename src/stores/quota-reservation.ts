/** How many units a quota gate (Redis or embedded SQLite) holds in the store at once. */

/** The largest block reserved at once: what a lost gate can cost an account at most, per reservation. */
export const MAX_RESERVATION = 100;

/** Units to reserve at once: 1% of the limit, at least 1 and at most MAX_RESERVATION. */
export function reservationBlock(limit: number): number {
  return Math.max(1, Math.min(MAX_RESERVATION, Math.floor(limit / 100)));
}
