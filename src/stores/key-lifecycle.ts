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

/** A key as rotation reads it: the shared lifecycle view plus what the replacement inherits. */
export interface RotatingKey {
  id: string;
  accountId: string;
  revoked: boolean;
  expiresAtMs: ExpiryMs;
  /** The stored expiry, carried to the replacement as written. */
  expiresAt: string | null;
  /** Who made it: the replacement stays theirs. */
  personId: string | null;
}

export interface RotationPlan {
  /** Grace 0: the old key is revoked now; otherwise it expires at the grace's end (never later than it would have). */
  retireOld: { revokedAt: string } | { expiresAt: string };
  /** The replacement row: the old key's account and expiry, the new secret. Its own limits and its count
   * against its own monthly cap are copied from the old key (`copyFromKeyId`), so a rotation never resets a cap. */
  newKey: { id: string; accountId: string; name: string | null; hash: string; last4: string; createdAt: string; expiresAt: string | null; personId: string | null };
  copyFromKeyId: string;
  /** Written in this order, in the same transaction. */
  audit: ReadonlyArray<{ action: 'key.create' | 'key.rotate'; accountId: string; keyId: string; details: Record<string, unknown> }>;
}

/**
 * Rotation written once for every store: checks that the grace is sane and the old key live, and says
 * what the store writes in one transaction. Pure; the store supplies the new key's id and the time.
 */
export function planRotation(input: {
  old: RotatingKey;
  replacement: { name: string | null; hash: string; last4: string };
  graceSeconds: number;
  nowMs: number;
  newKeyId: string;
}): RotationPlan {
  const { old, replacement, graceSeconds, nowMs, newKeyId } = input;
  if (!(graceSeconds >= 0)) throw new Error(`grace period must be zero or more seconds, got ${graceSeconds}`);
  assertKeyLive(old, nowMs);
  const now = new Date(nowMs).toISOString();
  return {
    retireOld: graceSeconds === 0 ? { revokedAt: now } : { expiresAt: graceExpiry(old.expiresAtMs, nowMs, graceSeconds) },
    // Rotating changes the secret only: the replacement carries on the old key's expiry.
    newKey: { id: newKeyId, accountId: old.accountId, name: replacement.name, hash: replacement.hash, last4: replacement.last4, createdAt: now, expiresAt: old.expiresAt, personId: old.personId },
    copyFromKeyId: old.id,
    audit: [
      { action: 'key.create', accountId: old.accountId, keyId: newKeyId, details: { name: replacement.name, rotatedFrom: old.id } },
      { action: 'key.rotate', accountId: old.accountId, keyId: old.id, details: { replacementKeyId: newKeyId, graceSeconds } },
    ],
  };
}

/** The details a `key.create` audit event records (workspace and kind only when not the defaults). */
export function createdDetails(name: string | null, expiresAt: string | Date | null, kind: 'inference' | 'management', workspaceId: string | null): Record<string, unknown> {
  const expiry = expiresAt === null ? {} : { expiresAt: typeof expiresAt === 'string' ? expiresAt : expiresAt.toISOString() };
  return { name, ...expiry, ...(workspaceId ? { workspaceId } : {}), ...(kind === 'management' ? { kind } : {}) };
}

/**
 * A key's name and disabled state after a patch, and what the `key.update` audit event records: only what
 * the patch names. Disabling a disabled key keeps its first instant, so the record says since when.
 */
export function applyKeyPatch(
  current: { name: string | null; disabledAt: string | null },
  patch: { name?: string | null; disabled?: boolean },
  now: string,
): { name: string | null; disabledAt: string | null; details: Record<string, unknown> } {
  const name = patch.name === undefined ? current.name : patch.name;
  const disabledAt = patch.disabled === undefined ? current.disabledAt : patch.disabled ? (current.disabledAt ?? now) : null;
  const details: Record<string, unknown> = {};
  if (patch.name !== undefined) details.name = patch.name;
  if (patch.disabled !== undefined) details.disabled = patch.disabled;
  return { name, disabledAt, details };
}
