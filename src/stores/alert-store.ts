/**
 * Alerts an account is told about (src/alerts/): each one recorded once per account, kind, subject and
 * period, under a unique constraint, so however many workers, instances or restarts notice it, exactly one
 * insert wins and only that one is mailed. Also which kinds the account wants by email.
 */

export const ALERT_KINDS = ['quota', 'spend_cap', 'key_cap', 'provider_key_rejected', 'key_traffic_spike', 'new_device'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface AlertInput {
  accountId: string;
  kind: AlertKind;
  /** What it is about: a key id, a provider id, a device, or '' for the account itself. */
  subject: string;
  /** The period it is raised once in: `2026-11` (a month), `2026-11-26` (a day), or `once`. */
  period: string;
  /** 80 or 100 for thresholds; 0 when the alert has no level. */
  level: number;
  /** Numbers and short labels for the message (never a secret, a prompt or a provider's body). */
  details: Readonly<Record<string, string | number | null>>;
}

export interface AlertRecord extends AlertInput {
  id: string;
  createdAt: string;
}

export interface AlertStore {
  /** Records the alert unless the same one exists; returns it only when this call recorded it. */
  recordAlert(input: AlertInput, at: string): Promise<AlertRecord | null>;
  /** The account's alerts, newest first. */
  listAlerts(accountId: string, limit: number): Promise<AlertRecord[]>;
  /** Which kinds the account wants by email; null when it never chose (the defaults apply). */
  getAlertEmailKinds(accountId: string): Promise<AlertKind[] | null>;
  setAlertEmailKinds(accountId: string, kinds: readonly AlertKind[], at: string): Promise<void>;
}

export function isAlertKind(value: string): value is AlertKind {
  return (ALERT_KINDS as readonly string[]).includes(value);
}
