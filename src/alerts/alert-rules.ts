/**
 * The pure rules: which threshold a use has crossed, when a key's traffic is a leaked-key signal, and the
 * words of every alert. No I/O; the sweep (alert-sweep.ts) gathers the numbers.
 */
import type { AlertInput, AlertKind } from '../stores/alert-store.js';

/** Warn at 80 %, and again when the limit is reached. */
export const THRESHOLDS = [80, 100] as const;

/** The highest threshold `used` of `limit` has reached, or null (a limit of 0 or less is no limit). */
export function thresholdReached(used: number, limit: number): number | null {
  if (!(limit > 0)) return null;
  let reached: number | null = null;
  for (const level of THRESHOLDS) if (used * 100 >= limit * level) reached = level;
  return reached;
}

/** A provider's answer that rejects the key itself (not a throttle): 401, 402 (no credit) or 403. */
export function isKeyRejection(status: number | null): status is number {
  return status === 401 || status === 402 || status === 403;
}

export interface SpikeRule {
  /** Requests in the last hour below this are never a spike (a new key's first calls). */
  minRequests: number;
  /** How many times the key's own average hourly rate the last hour must reach. */
  factor: number;
}

/**
 * A leaked-key signal: the last hour's requests reached `minRequests` and `factor` times the key's own
 * average per hour over the week before (an hour with no history counts as a rate of one per hour, so a
 * quiet key that suddenly sends hundreds is flagged).
 */
export function isTrafficSpike(lastHour: number, weekBefore: number, rule: SpikeRule): boolean {
  const hourlyBefore = Math.max(1, weekBefore / (7 * 24 - 1));
  return lastHour >= rule.minRequests && lastHour >= rule.factor * hourlyBefore;
}

/** Which kinds an account gets by email when it never chose: all of them. */
export const DEFAULT_EMAIL_KINDS: readonly AlertKind[] = ['quota', 'spend_cap', 'key_cap', 'provider_key_rejected', 'key_traffic_spike', 'new_device'];

export const KIND_LABELS: Readonly<Record<AlertKind, string>> = {
  quota: 'Monthly requests at 80 % and 100 % of the plan',
  spend_cap: 'Spend at 80 % and 100 % of the spend cap',
  key_cap: 'A key at 80 % and 100 % of its own monthly cap',
  provider_key_rejected: 'A provider key rejected by its provider',
  key_traffic_spike: 'A key with far more traffic than usual (possibly leaked)',
  new_device: 'A sign-in from a new device',
};

/** The alert in words: a title (the email's subject) and lines. */
export function describeAlert(alert: Pick<AlertInput, 'kind' | 'level' | 'details' | 'subject'>): { title: string; lines: string[] } {
  const d = alert.details;
  const reached = alert.level >= 100 ? 'has reached' : `is at ${alert.level} % of`;
  switch (alert.kind) {
    case 'quota':
      return {
        title: alert.level >= 100 ? 'Your monthly requests are used up' : `You have used ${alert.level} % of your monthly requests`,
        lines: [`Your account ${reached} its monthly request quota: ${d.used} of ${d.limit} requests this month.`, alert.level >= 100 ? 'Further requests are refused until the month ends or the plan is upgraded.' : 'When it is used up, requests are refused until the month ends.'],
      };
    case 'spend_cap':
      return {
        title: alert.level >= 100 ? 'Your spend cap is reached' : `You have used ${alert.level} % of your spend cap`,
        lines: [`Spend through our provider access ${reached} this month's cap: $${d.spentUsd} of $${d.capUsd}.`, 'Requests with your own provider keys keep working.'],
      };
    case 'key_cap':
      return {
        title: alert.level >= 100 ? `Key "${d.keyName}" reached its monthly cap` : `Key "${d.keyName}" is at ${alert.level} % of its monthly cap`,
        lines: [`The API key ${d.keyLabel} ${reached} its own monthly cap: ${d.used} of ${d.limit} requests.`],
      };
    case 'provider_key_rejected':
      return {
        title: `Your ${d.provider} key was rejected`,
        lines: [`${d.provider} answered ${d.status} to your provider key (${d.source === 'test' ? 'when you tested it' : 'in live traffic'}) on ${d.at}.`, 'Replace it, or test it again once it is fixed; until then requests use your other keys.'],
      };
    case 'key_traffic_spike':
      return {
        title: `Unusual traffic on key "${d.keyName}"`,
        lines: [
          `The API key ${d.keyLabel} made ${d.lastHour} requests in the last hour, ${d.usualPerHour === 0 ? 'and none in the week before' : `against about ${d.usualPerHour} per hour over the week before`}.`,
          'If you did not expect this, the key may have leaked: revoke it now and create a new one.',
        ],
      };
    case 'new_device':
      return { title: 'New sign-in to your account', lines: [`Signed in from ${d.browser}${d.ip ? ` (${d.ip})` : ''}.`] };
  }
}
