/**
 * Which recorded alerts still call for something, for the app's home: the security page lists every
 * alert ever raised; the home shows only those a person can still act on, each once, with its action.
 * Pure: the caller gathers what is true now (live keys, failing provider keys, the current period).
 */
import type { AlertKind, AlertRecord } from '../stores/alert-store.js';

export interface AlertFactsNow {
  now: number;
  /** The current quota period (`2026-11`): a threshold alert of an earlier month is over. */
  quotaPeriod: string;
  /** Keys that still work (not revoked, not expired): an alert about another key is over. */
  liveKeyIds: ReadonlySet<string>;
  /** Providers whose stored key is still rejected (not replaced, re-tested or accepted since). */
  failingProviders: ReadonlySet<string>;
}

/** What the person can do about an open alert. */
export type AlertAction = { kind: 'revoke-key'; keyId: string } | { kind: 'link'; label: string; page: 'usage' | 'keys' | 'provider-keys'; anchor?: string };

export interface OpenAlert {
  alert: AlertRecord;
  action: AlertAction;
}

/** A leaked-key signal stays on the home for a day: long enough to be seen, not forever once judged harmless. */
export const SPIKE_SHOWN_MS = 24 * 3_600_000;

/**
 * The open alerts, newest first, one per kind and subject (the highest level of a threshold: 100 % hides
 * 80 %). `alerts` is newest first, as the store lists them.
 */
export function openAlerts(alerts: readonly AlertRecord[], facts: AlertFactsNow): OpenAlert[] {
  const shown = new Map<string, OpenAlert>();
  for (const alert of alerts) {
    const action = actionIfOpen(alert, facts);
    if (!action) continue;
    const key = `${alert.kind}\u0000${alert.subject}`;
    const earlier = shown.get(key);
    if (!earlier || alert.level > earlier.alert.level) shown.set(key, { alert, action });
  }
  return [...shown.values()].sort((a, b) => (a.alert.createdAt < b.alert.createdAt ? 1 : a.alert.createdAt > b.alert.createdAt ? -1 : 0));
}

function actionIfOpen(alert: AlertRecord, facts: AlertFactsNow): AlertAction | null {
  const kind: AlertKind = alert.kind;
  switch (kind) {
    case 'quota':
    case 'spend_cap':
      return alert.period === facts.quotaPeriod ? { kind: 'link', label: 'See usage', page: 'usage' } : null;
    case 'key_cap':
      return alert.period === facts.quotaPeriod && facts.liveKeyIds.has(alert.subject) ? { kind: 'link', label: 'Change its cap', page: 'keys', anchor: alert.subject } : null;
    case 'provider_key_rejected':
      return facts.failingProviders.has(alert.subject) ? { kind: 'link', label: 'Fix provider key', page: 'provider-keys' } : null;
    case 'key_traffic_spike':
      return facts.liveKeyIds.has(alert.subject) && facts.now - Date.parse(alert.createdAt) < SPIKE_SHOWN_MS ? { kind: 'revoke-key', keyId: alert.subject } : null;
    case 'new_device':
      // A note on the security page, not something to act on from the home.
      return null;
  }
}
