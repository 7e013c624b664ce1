/**
 * What every Store must do for alerts and email verification (stores/alert-store.ts), run against SQLite
 * and PostgreSQL: an alert is recorded once per account, kind, subject, period and level (so concurrent
 * sweeps mail it once), listings stay within the account, and preferences round-trip.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertInput } from '../../src/stores/alert-store.js';
import type { Store } from '../../src/stores/store.js';
import { ManualClock, type MakeStore } from './store-contract.js';

const AT = '2026-11-15T12:00:00.000Z';

export function runAlertStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name} alert store contract`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore(new ManualClock(Date.parse(AT)));
    });
    afterEach(async () => store.close());

    const quotaAlert = (accountId: string, level: number): AlertInput => ({ accountId, kind: 'quota', subject: '', period: '2026-11', level, details: { used: 800, limit: 1000 } });

    it('records an alert once per period and level, even when raised concurrently', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      const results = await Promise.all(Array.from({ length: 8 }, () => store.recordAlert(quotaAlert(a.id, 80), AT)));
      expect(results.filter((alert) => alert !== null)).toHaveLength(1);
      expect(results.find((alert) => alert !== null)).toMatchObject({ accountId: a.id, kind: 'quota', level: 80, details: { used: 800, limit: 1000 }, createdAt: AT });
      expect(await store.recordAlert(quotaAlert(a.id, 100), AT)).not.toBeNull();
      expect(await store.recordAlert({ ...quotaAlert(a.id, 80), period: '2026-12' }, AT)).not.toBeNull();
      expect((await store.listAlerts(a.id, 10)).map((alert) => [alert.period, alert.level])).toEqual(
        expect.arrayContaining([['2026-11', 80], ['2026-11', 100], ['2026-12', 80]]),
      );
    });

    it('lists only the account\'s own alerts, newest first, within the limit', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      const b = await store.createAccount({ email: 'b@example.com', plan: 'free' }, 'cli');
      await store.recordAlert(quotaAlert(a.id, 80), '2026-11-15T12:00:00.000Z');
      await store.recordAlert(quotaAlert(a.id, 100), '2026-11-16T12:00:00.000Z');
      await store.recordAlert(quotaAlert(b.id, 80), AT);
      expect((await store.listAlerts(a.id, 1)).map((alert) => alert.level)).toEqual([100]);
      expect(await store.listAlerts(b.id, 10)).toHaveLength(1);
    });

    it('keeps the email preferences per account (null until chosen)', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      expect(await store.getAlertEmailKinds(a.id)).toBeNull();
      await store.setAlertEmailKinds(a.id, ['quota', 'key_traffic_spike'], AT);
      expect(await store.getAlertEmailKinds(a.id)).toEqual(['quota', 'key_traffic_spike']);
      await store.setAlertEmailKinds(a.id, [], AT);
      expect(await store.getAlertEmailKinds(a.id)).toEqual([]);
    });

    it('marks a login\'s email verified once and keeps the first time', async () => {
      const a = await store.createAccountWithLogin({ email: 'v@example.com', plan: 'free', passwordHash: 'x' }, 'app');
      expect((await store.getLogin(a.id))?.emailVerifiedAt).toBeNull();
      await store.markEmailVerified(a.id, AT);
      await store.markEmailVerified(a.id, '2026-12-01T00:00:00.000Z');
      expect((await store.getLogin(a.id))?.emailVerifiedAt).toBe(AT);
    });

    it('stores verify links like the other kinds', async () => {
      const a = await store.createAccountWithLogin({ email: 'v@example.com', plan: 'free', passwordHash: 'x' }, 'app');
      await store.createLinkToken({ kind: 'verify', email: 'v@example.com', accountId: a.id, tokenHash: 'h'.repeat(64), expiresAt: '2026-11-15T12:30:00.000Z' }, 'app');
      expect(await store.consumeLinkToken('h'.repeat(64), AT)).toMatchObject({ kind: 'verify', accountId: a.id });
    });
  });
}
