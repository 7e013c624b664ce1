/**
 * The Redis monthly quota gate against a real PostgreSQL (and SQLite) store and a real Redis: admission,
 * reservation blocks, settlement, refunds, plan changes and periods. The gate must be exactly as strict
 * as the store's own admission: never more than the limit under concurrency or across instances.
 * Scripts called directly: redis-quota-gate-scripts.test.ts; outages: redis-quota-gate-outages.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { forgetOnAccountChange } from '../../../src/stores/forget-on-account-change.js';
import { reservationBlock } from '../../../src/stores/redis/create-redis-quota-gate.js';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import { NotFoundInStoreError } from '../../../src/stores/store.js';
import {
  admittedUsed,
  expectAccountChangesAtTheNextAdmission,
  LIMITS,
  NEXT_PERIOD,
  oneTo,
  PERIOD,
  quotaGateSkipReason,
  sleep,
  until,
  useQuotaGateFixture,
  watchHolds,
} from './quota-gate-fixtures.js';

if (quotaGateSkipReason) console.warn(quotaGateSkipReason);

describe.skipIf(quotaGateSkipReason !== undefined)('redis quota gate', () => {
  const fixture = useQuotaGateFixture('admission');
  const { gate, newAccount, admitOnce, admitAll, nextPrefix } = fixture;

  it('sizes reservation blocks at 1% of the limit, between 1 and 100', () => {
    expect([0, 37, 199, 200, 1000, 10_000, 1_000_000].map(reservationBlock)).toEqual([1, 1, 1, 2, 10, 100, 100]);
  });

  describe.each([
    ['postgres', async () => fixture.store],
    [
      'sqlite',
      async () => {
        const sqlite = createSqliteStore({ path: ':memory:', clock: systemClock });
        await sqlite.migrate();
        fixture.closeAfterTest(sqlite);
        return sqlite;
      },
    ],
  ])('on %s', (_name, openStore) => {
    it('two instances admit exactly the limit of 37 out of 200 concurrent requests, each at a distinct count', async () => {
      const on = await openStore();
      const keyPrefix = nextPrefix();
      const gates = [gate({ store: on, keyPrefix }), gate({ store: on, keyPrefix })];
      const accountId = await newAccount('exact', on);

      const decisions = await admitAll(gates, accountId, 200);
      expect(admittedUsed(decisions)).toEqual(oneTo(37));
      for (const rejected of decisions.filter((decision) => !decision.admitted)) {
        expect(rejected).toMatchObject({ plan: 'exact', status: 'active', limit: 37 });
        expect(rejected.used).toBeGreaterThanOrEqual(37);
      }
      expect(gates.map((g) => g.status())).toEqual([{ backend: 'redis-gate' }, { backend: 'redis-gate' }]);

      // close() flushes the settlements: every admission is now in the exact `used` column.
      await Promise.all(gates.map((g) => g.close()));
      expect(await on.readQuota(accountId, PERIOD)).toBe(37);
      // The store never holds past the limit, and everything it held was used.
      expect(await on.readQuotaCommitted(accountId, PERIOD)).toBe(37);
    });
  });

  it('counts on from one number when two instances reserve at once: one reserves while the other waits', async () => {
    // Instance A's hold reaches the store first but its units reach Redis late. Without the account's
    // reservation lock, B would hold next, take A's units for used, and hand out counts A hands out again.
    const accountId = await newAccount('large');
    const keyPrefix = nextPrefix();
    const slowToApply: typeof fixture.store = {
      ...fixture.store,
      async holdQuota(input) {
        const held = await fixture.store.holdQuota(input);
        await sleep(100);
        return held;
      },
    };
    const a = gate({ store: slowToApply, keyPrefix });
    const b = gate({ keyPrefix });
    await admitOnce(b, accountId); // card and counter in place, one unit used: the rest start at 2
    const fromA = Promise.all(Array.from({ length: 6 }, () => admitOnce(a, accountId)));
    await sleep(30);
    const fromB = await Promise.all(Array.from({ length: 6 }, () => admitOnce(b, accountId)));
    const decisions = [...(await fromA), ...fromB];
    expect(admittedUsed(decisions)).toEqual(oneTo(13).slice(1));
    await Promise.all([a.close(), b.close()]);
    expect(await fixture.store.readQuota(accountId, PERIOD)).toBe(13);
    expect(await fixture.store.readQuotaCommitted(accountId, PERIOD)).toBe(13);
  });

  it('reserves a block of 1% of a large limit: ten admissions cost one store hold', async () => {
    const watched = watchHolds(fixture.store);
    const ledger = gate({ store: watched.store, keyPrefix: nextPrefix() });
    const accountId = await newAccount('big');
    expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: true, used: 1, limit: 1_000_000 });
    expect(await fixture.store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
    for (let i = 2; i <= 10; i++) expect((await admitOnce(ledger, accountId)).used).toBe(i);
    expect(watched.holds()).toBe(1);
    expect(await fixture.store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
    await ledger.close();
    expect(await fixture.store.readQuota(accountId, PERIOD)).toBe(10);
    expect(await fixture.store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
  });

  it('reserves for every request waiting on the instance at once, not block by block', async () => {
    const ledger = gate({ keyPrefix: nextPrefix() });
    const accountId = await newAccount('thousand');
    const decisions = await admitAll([ledger], accountId, 50);
    expect(admittedUsed(decisions)).toEqual(oneTo(50));
    // One hold of 50 (the demand), not five of reservationBlock(1000) = 10, and nothing held beyond it.
    expect(await fixture.store.readQuotaCommitted(accountId, PERIOD)).toBe(50);
  });

  it('settles admissions into the store within the settle interval, without closing', async () => {
    const ledger = gate({ keyPrefix: nextPrefix(), settleMs: 30 });
    const accountId = await newAccount('big');
    for (let i = 0; i < 4; i++) await admitOnce(ledger, accountId);
    await until(async () => (await fixture.store.readQuota(accountId, PERIOD)) === 4, 1000);
    // Settling moved the units from held to used: the total the limit is checked against did not change.
    expect(await fixture.store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
  });

  it('a refund makes the unit available again, and the settled count leaves it out', async () => {
    const ledger = gate({ keyPrefix: nextPrefix() });
    const accountId = await newAccount('tiny');
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await admitOnce(ledger, accountId));
    expect(decisions.map((decision) => decision.used)).toEqual([1, 2, 3]);
    expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: false, used: 3, limit: 3 });

    await decisions[1]!.refund();
    expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: true, used: 3 });
    await (await admitOnce(ledger, accountId)).refund(); // a rejected decision's refund gives nothing back
    await decisions[2]!.refund();
    await ledger.close();
    // Four admissions, two refunds: two units used. The refunded unit is back in held, still the gate's.
    expect(await fixture.store.readQuota(accountId, PERIOD)).toBe(2);
    expect(await fixture.store.readQuotaCommitted(accountId, PERIOD)).toBe(3);
  });

  it('applies plan changes and deactivation made through forgetOnAccountChange to the very next admission', async () => {
    const ledger = gate({ keyPrefix: nextPrefix() });
    await expectAccountChangesAtTheNextAdmission(fixture.store, ledger, await newAccount('medium'));
  });

  it('finds a plan change Redis was not told about at the next reservation, and any change once the card expires', async () => {
    const ledger = gate({ keyPrefix: nextPrefix(), cardTtlMs: 500 });
    const downgraded = await newAccount('medium');
    await admitOnce(ledger, downgraded);
    await admitOnce(ledger, downgraded);
    // Straight to the store, bypassing forgetOnAccountChange: the card still says `medium`, but the gate
    // has no unit left (blocks of 1), so the next admission reserves, and the store's hold sees the new plan.
    await fixture.store.setAccountPlan(downgraded, 'small', 'cli');
    expect(await admitOnce(ledger, downgraded)).toMatchObject({ plan: 'small', admitted: false, used: 2, limit: 2 });

    const deactivated = await newAccount('big');
    await admitOnce(ledger, deactivated);
    await fixture.store.deactivateAccount(deactivated, 'cli');
    // Within the block already held and before the card expires, the stale card decides: the bound that
    // forgetOnAccountChange exists to avoid.
    expect(await admitOnce(ledger, deactivated)).toMatchObject({ status: 'active', admitted: true });
    await sleep(550);
    expect(await admitOnce(ledger, deactivated)).toMatchObject({ status: 'inactive', admitted: false });
  });

  it('fails for an account the store does not know', async () => {
    const ledger = gate({ keyPrefix: nextPrefix() });
    await expect(admitOnce(ledger, 'acct_missing')).rejects.toBeInstanceOf(NotFoundInStoreError);
    expect(await ledger.peek('acct_missing', PERIOD, LIMITS)).toBeNull();
  });

  it('starts a new period from the store count of that period', async () => {
    const ledger = gate({ keyPrefix: nextPrefix() });
    const accountId = await newAccount('big');
    for (let i = 0; i < 3; i++) await admitOnce(ledger, accountId);
    // The next month already has 5 counted and 2 held in the store (another instance, or decisions made
    // while Redis was away): its counter starts from all 7.
    for (let i = 0; i < 5; i++) await fixture.store.admitQuota({ accountId, period: NEXT_PERIOD, weight: 1, limitsByPlan: LIMITS });
    await fixture.store.holdQuota({ accountId, period: NEXT_PERIOD, weight: 2, limitsByPlan: LIMITS });
    expect(await admitOnce(ledger, accountId, NEXT_PERIOD)).toMatchObject({ admitted: true, used: 8 });
    expect(await admitOnce(ledger, accountId, PERIOD)).toMatchObject({ admitted: true, used: 4 });
    await ledger.close();
    expect(await fixture.store.readQuota(accountId, NEXT_PERIOD)).toBe(6);
    expect(await fixture.store.readQuota(accountId, PERIOD)).toBe(4);
  });

  it('peek reads the Redis count while the store has not settled it yet, and the store otherwise', async () => {
    const ledger = gate({ keyPrefix: nextPrefix(), settleMs: 60_000 });
    const accountId = await newAccount('big');
    for (let i = 0; i < 3; i++) await admitOnce(ledger, accountId);
    await fixture.store.admitQuota({ accountId, period: NEXT_PERIOD, weight: 2, limitsByPlan: LIMITS });

    expect(await fixture.store.readQuota(accountId, PERIOD)).toBe(0);
    expect(await ledger.peek(accountId, PERIOD, LIMITS)).toEqual({ plan: 'big', status: 'active', used: 3, limit: 1_000_000 });
    // No counter in Redis for the next month: the store's count.
    expect(await ledger.peek(accountId, NEXT_PERIOD, LIMITS)).toEqual({ plan: 'big', status: 'active', used: 2, limit: 1_000_000 });
    await ledger.close();
    expect(await fixture.store.readQuota(accountId, PERIOD)).toBe(3);
  });
});
