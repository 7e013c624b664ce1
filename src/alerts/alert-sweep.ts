/**
 * Finds alerts off the request path. The request observer (`observer`) only adds the account of each
 * finished request to a set; every `app.alerts.sweepSeconds` the sweep checks those accounts (quota,
 * spend cap, keys' own caps, provider keys rejected in live traffic, traffic spikes per key), records what
 * it finds once per period (the store's unique insert: another worker or a restart finds it recorded and
 * sends nothing) and mails what it recorded. A failure is logged and the account is checked again on
 * its next request; it never touches a request.
 */
import type { ConsolaInstance } from 'consola';
import type { RouterConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/describe-error.js';
import { quotaPeriod } from '../core/quota-period.js';
import { alertMessage } from '../mail/mail-messages.js';
import type { Mailer } from '../mail/mailer.js';
import type { CredentialHealth } from '../routing/credential-health.js';
import type { AlertInput } from '../stores/alert-store.js';
import type { LedgerStore } from '../stores/ledger-store.js';
import type { QuotaLedger } from '../stores/quota-ledger.js';
import type { ApiKeyRecord, Store } from '../stores/store.js';
import { mailAlertTo } from './alert-mail.js';
import { describeAlert, isTrafficSpike, thresholdReached } from './alert-rules.js';

export interface AlertSweepDeps {
  config: RouterConfig;
  store: Store;
  ledger: LedgerStore | null;
  quota: QuotaLedger;
  quotaLimits: Readonly<Record<string, number>>;
  credentialHealth: CredentialHealth;
  managedAccessActive: boolean;
  mail: Mailer;
  clock: Clock;
  logger: ConsolaInstance;
}

const HOUR_MS = 3_600_000;
const keyLabel = (key: ApiKeyRecord) => `${key.prefix}…${key.last4}`;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class AlertSweep {
  /** Accounts to check, with when each last had a request. */
  readonly #touched = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(private readonly deps: AlertSweepDeps) {}

  /** Told about every finished request: remembers its account, nothing more (O(1), no I/O). */
  readonly observer = {
    onRequestFinished: (outcome: { accountId: string | null }) => {
      if (outcome.accountId) this.#touched.set(outcome.accountId, this.deps.clock.now());
    },
  };

  /** Also called by pages that learn something at once (a provider key's failed test). */
  touch(accountId: string): void {
    this.#touched.set(accountId, this.deps.clock.now());
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.sweep(), this.deps.config.server.app.alerts.sweepSeconds * 1000);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /**
   * Checks every account touched since the last sweep (one sweep at a time). Spend and traffic are read
   * from the usage ledger, which is written in batches every `ledger.flushIntervalMs`: an account whose
   * last request may not be written yet stays for the next sweep too, so its last request is never missed.
   */
  sweep(): Promise<void> {
    this.#running ??= (async () => {
      const accounts = [...this.#touched];
      const written = this.deps.clock.now() - this.deps.config.server.ledger.flushIntervalMs;
      for (const [accountId, at] of accounts) if (at < written) this.#touched.delete(accountId);
      for (const [accountId, at] of accounts) {
        try {
          await this.#check(accountId);
        } catch (error) {
          if (!this.#touched.has(accountId)) this.#touched.set(accountId, at);
          this.deps.logger.warn(`alerts: checking account ${accountId} failed (${describeError(error)}); it is checked again on the next sweep`);
        }
      }
    })().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** Records the alert once and mails it when this call recorded it; true when recorded. */
  async raise(input: AlertInput): Promise<boolean> {
    const recorded = await this.deps.store.recordAlert(input, new Date(this.deps.clock.now()).toISOString());
    if (!recorded) return false;
    const appUrl = this.deps.config.server.appUrl;
    const links = input.kind === 'key_traffic_spike' ? [`Revoke the key in one click: ${appUrl}/security#alerts`] : [`Your account: ${appUrl}/`];
    mailAlertTo(this.deps, input.accountId, input.kind, (email) => alertMessage(email, describeAlert(input), links));
    return true;
  }

  async #check(accountId: string): Promise<void> {
    const { store, clock } = this.deps;
    const account = await store.getAccount(accountId);
    if (!account || account.status !== 'active') return;
    const now = clock.now();
    const period = quotaPeriod(now).key;
    const standing = await this.deps.quota.peek(accountId, period, this.deps.quotaLimits);
    const quotaLevel = standing ? thresholdReached(standing.used, standing.limit) : null;
    if (standing && quotaLevel) await this.raise({ accountId, kind: 'quota', subject: '', period, level: quotaLevel, details: { used: standing.used, limit: standing.limit } });
    await this.#checkSpend(accountId, account.plan, period, now);
    const keys = (await store.listApiKeys(accountId)).filter((key) => key.revokedAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > now));
    await this.#checkKeyCaps(accountId, keys, period);
    await this.#checkSpikes(accountId, keys, now);
    await this.#checkProviderKeys(accountId);
  }

  async #checkSpend(accountId: string, planId: string, period: string, now: number): Promise<void> {
    const cap = this.deps.config.plans.find((plan) => plan.id === planId)?.managedSpendCapUsd;
    if (!this.deps.managedAccessActive || !this.deps.ledger || !cap) return;
    const spend = await this.deps.ledger.readSpend(accountId, period, new Date(now).toISOString());
    const level = thresholdReached(spend.spentNanoUsd, cap * 1e9);
    if (level) await this.raise({ accountId, kind: 'spend_cap', subject: '', period, level, details: { spentUsd: (spend.spentNanoUsd / 1e9).toFixed(2), capUsd: cap.toFixed(2) } });
  }

  async #checkKeyCaps(accountId: string, keys: readonly ApiKeyRecord[], period: string): Promise<void> {
    const limits = new Map((await this.deps.store.listKeyLimits(accountId)).map((limit) => [limit.keyId, limit.monthlyRequests]));
    for (const key of keys) {
      const limit = limits.get(key.id);
      if (!limit) continue;
      const used = await this.deps.store.readKeyQuota(key.id, period);
      const level = thresholdReached(used, limit);
      if (level) await this.raise({ accountId, kind: 'key_cap', subject: key.id, period, level, details: { keyName: key.name ?? 'unnamed', keyLabel: keyLabel(key), used, limit } });
    }
  }

  async #checkSpikes(accountId: string, keys: readonly ApiKeyRecord[], now: number): Promise<void> {
    if (!this.deps.ledger || keys.length === 0) return;
    const iso = (ms: number) => new Date(ms).toISOString();
    const cells = await this.deps.ledger.sumUsageByRangeAnd(
      accountId,
      [{ label: 'hour', from: iso(now - HOUR_MS), to: iso(now + 1) }, { label: 'week', from: iso(now - 7 * 24 * HOUR_MS), to: iso(now - HOUR_MS) }],
      'key',
    );
    const { spikeMinRequests: minRequests, spikeFactor: factor } = this.deps.config.server.app.alerts;
    for (const key of keys) {
      const lastHour = cells.find((cell) => cell.range === 'hour' && cell.group === key.id)?.requests ?? 0;
      const weekBefore = cells.find((cell) => cell.range === 'week' && cell.group === key.id)?.requests ?? 0;
      if (!isTrafficSpike(lastHour, weekBefore, { minRequests, factor })) continue;
      const usualPerHour = Math.round((weekBefore / (7 * 24 - 1)) * 10) / 10;
      await this.raise({ accountId, kind: 'key_traffic_spike', subject: key.id, period: dayOf(now), level: 0, details: { keyName: key.name ?? 'unnamed', keyLabel: keyLabel(key), lastHour, usualPerHour } });
    }
  }

  /**
   * A provider rejected the account's key for `providerId` (401, 402 or 403), in live traffic or on the
   * provider-keys page's Test: one alert per provider and day either way, so a key that fails its Test and
   * then live traffic on the same day is mailed once.
   */
  raiseProviderKeyRejected(accountId: string, providerId: string, rejection: { status: number; at: number }, source: 'traffic' | 'test'): Promise<boolean> {
    return this.raise({
      accountId,
      kind: 'provider_key_rejected',
      subject: providerId,
      period: dayOf(rejection.at),
      level: 0,
      details: { provider: providerId, status: rejection.status, source, at: new Date(rejection.at).toISOString() },
    });
  }

  async #checkProviderKeys(accountId: string): Promise<void> {
    for (const providerKey of await this.deps.store.listProviderKeys(accountId)) {
      const rejection = this.deps.credentialHealth.rejection(accountId, providerKey.providerId);
      if (rejection) await this.raiseProviderKeyRejected(accountId, providerKey.providerId, rejection, 'traffic');
    }
  }
}
