/** How keys, dates and limits read on the pages (pure; no I/O). */
import type { KeyLimits } from '../stores/key-limit-store.js';
import type { ApiKeyRecord } from '../stores/store.js';

const DAY_MS = 86_400_000;

/** `2026-11-21 10:00 UTC`: one format and one time zone everywhere on the pages. */
export function utcLabel(iso: string | null): string {
  if (iso === null) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export type KeyState = 'live' | 'grace' | 'retired';

export function keyState(key: ApiKeyRecord, nowMs: number, rotated: boolean): KeyState {
  if (key.revokedAt !== null) return 'retired';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= nowMs) return 'retired';
  return rotated ? 'grace' : 'live';
}

export function maskedKey(key: Pick<ApiKeyRecord, 'prefix' | 'last4'>): string {
  return `${key.prefix}…${key.last4}`;
}

export function limitsLabel(limits: KeyLimits | undefined): string {
  const parts: string[] = [];
  if (limits?.monthlyRequests != null) parts.push(`${limits.monthlyRequests} / month`);
  if (limits?.requestsPerMinute != null) parts.push(`${limits.requestsPerMinute} / minute`);
  return parts.length ? parts.join(', ') : 'plan limits only';
}

/** A key unused this long since its creation is flagged as never used (a brand-new key is not). */
export const NEVER_USED_AFTER_DAYS = 7;
/** A key whose last use is older than this is flagged as idle. */
export const IDLE_AFTER_DAYS = 30;

/**
 * Hygiene hints for live keys: no expiry, never used (a week after creation), unused for 30 days.
 * `lastUsed` is from the usage ledger: null for never, undefined when the server records no usage.
 */
export function hygieneHints(
  keys: readonly { name: string | null; last4: string; createdAt: string; expiresAt: string | null; lastUsed: string | null | undefined }[],
  nowMs: number,
): string[] {
  const hints: string[] = [];
  for (const key of keys) {
    const label = `${key.name ?? '(unnamed)'} (…${key.last4})`;
    if (key.expiresAt === null) hints.push(`${label} never expires: rotate it now and then, or create keys with an expiry.`);
    const age = Math.floor((nowMs - Date.parse(key.createdAt)) / DAY_MS);
    if (key.lastUsed === null) {
      if (age >= NEVER_USED_AFTER_DAYS) hints.push(`${label} was created ${age} days ago and has never been used: revoke it if nothing needs it.`);
    } else if (key.lastUsed !== undefined) {
      const idle = Math.floor((nowMs - Date.parse(key.lastUsed)) / DAY_MS);
      if (idle >= IDLE_AFTER_DAYS) hints.push(`${label} has not been used for ${idle} days: revoke it if nothing needs it any more.`);
    }
  }
  return hints;
}

/** A positive whole number no larger than `max`, null for an empty field, or a problem message. */
export function parseLimit(raw: string | undefined, max: number, what: string): number | null | { problem: string } {
  const text = (raw ?? '').trim();
  if (text === '') return null;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < 1) return { problem: `${what} must be a whole number of at least 1.` };
  if (Number(text) > max) return { problem: `${what} must not exceed the plan's ${max}.` };
  return Number(text);
}
