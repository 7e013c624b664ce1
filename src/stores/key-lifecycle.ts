/** Rules of a key's life shared by every store: what may be rotated or revoked, and when a grace ends. */

/** Expiry of a key, in ms since the epoch; null when it has none. */
export type ExpiryMs = number | null;

/** Rotating or revoking a key that is already revoked or past its grace is an operator mistake. */
export function assertKeyLive(key: { id: string; revoked: boolean; expiresAtMs: ExpiryMs }, nowMs: number): void {
  if (key.revoked) throw new Error(`api key ${key.id} is already revoked`);
  if (key.expiresAtMs !== null && key.expiresAtMs <= nowMs) throw new Error(`api key ${key.id} has already expired`);
}

/** When an old key stops working after rotation; a second rotation within a grace never extends its life. */
export function graceExpiry(currentExpiryMs: ExpiryMs, nowMs: number, graceSeconds: number): string {
  return new Date(Math.min(nowMs + graceSeconds * 1000, currentExpiryMs ?? Number.POSITIVE_INFINITY)).toISOString();
}
