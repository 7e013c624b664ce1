/**
 * The Redis quota gate's Lua scripts, called directly against a real Redis (and a real PostgreSQL store
 * for the account they describe): the orders of events the gate itself cannot be made to produce on cue,
 * such as a card fill racing a plan change or two reservations arriving in either order.
 */
import { describe, expect, it } from 'vitest';
import { forgetOnAccountChange } from '../../../src/stores/forget-on-account-change.js';
import { APPLY_RESERVATION_SCRIPT, FILL_CARD_SCRIPT, FORGET_CARD_SCRIPT, SEED_COUNTER_SCRIPT } from '../../../src/stores/redis/quota-gate-scripts.js';
import { cardKey, generationKey, LIMITS, quotaGateSkipReason, useQuotaGateFixture } from './quota-gate-fixtures.js';

if (quotaGateSkipReason) console.warn(quotaGateSkipReason);

describe.skipIf(quotaGateSkipReason !== undefined)('redis quota gate scripts', () => {
  const fixture = useQuotaGateFixture('scripts');
  const { gate, newAccount, admitOnce, nextPrefix } = fixture;

  const fill = (prefix: string, accountId: string, seen: string, plan: string, status: string, limit: number, ttlMs: number) =>
    fixture.redis.eval(FILL_CARD_SCRIPT, 2, cardKey(prefix, accountId), generationKey(prefix, accountId), seen, plan, status, limit, ttlMs);
  const apply = (counter: string, total: number, reserved: number) =>
    fixture.redis.eval(APPLY_RESERVATION_SCRIPT, 1, counter, total, reserved, Date.now() + 60_000);
  const counterState = async (counter: string) => {
    const { used, granted } = await fixture.redis.hgetall(counter);
    return { used: Number(used), granted: Number(granted), available: Number(granted) - Number(used) };
  };

  it('a card read from the store before a plan change is never written after it', async () => {
    const keyPrefix = nextPrefix();
    const ledger = gate({ keyPrefix });
    const accounts = forgetOnAccountChange(fixture.store, ledger, () => undefined);
    const accountId = await newAccount('large');
    // A fill under way: it saw the generation, then read the account from the store...
    const seen = (await fixture.redis.get(generationKey(keyPrefix, accountId))) ?? '0';
    const read = await fixture.store.getAccount(accountId);
    // ...and the plan changes (committed, card forgotten) before the fill reaches Redis.
    await accounts.setAccountPlan(accountId, 'small', 'cli');
    expect(await fill(keyPrefix, accountId, seen, read!.plan, read!.status, LIMITS.large, 60_000)).toBe(0);
    expect(await fixture.redis.exists(cardKey(keyPrefix, accountId))).toBe(0);
    expect(await admitOnce(ledger, accountId)).toMatchObject({ plan: 'small', limit: 2, admitted: true, used: 1 });

    // A fill that saw the current generation writes the card, with its TTL.
    const current = (await fixture.redis.get(generationKey(keyPrefix, accountId)))!;
    expect(current).toBe('1');
    expect(await fill(keyPrefix, accountId, current, 'large', 'active', 20, 60_000)).toBe(1);
    expect(await fixture.redis.hgetall(cardKey(keyPrefix, accountId))).toEqual({ plan: 'large', status: 'active', limit: '20' });
    expect(await fixture.redis.pttl(cardKey(keyPrefix, accountId))).toBeGreaterThan(50_000);
    // Forgetting bumps the generation again and drops the card; the generation itself expires eventually.
    expect(await fixture.redis.eval(FORGET_CARD_SCRIPT, 2, cardKey(keyPrefix, accountId), generationKey(keyPrefix, accountId), 5000)).toBe(1);
    expect(await fixture.redis.get(generationKey(keyPrefix, accountId))).toBe('2');
    expect(await fixture.redis.pttl(generationKey(keyPrefix, accountId))).toBeGreaterThan(0);
  });

  it('two reservations applied in either order leave exactly the reserved, unused units available', async () => {
    const keyPrefix = nextPrefix();
    // Both start from a counter with 3 used of 5 granted; the store then holds 4 (total 9) and 6 (total 15).
    const start = async (counter: string) => void (await fixture.redis.hset(counter, 'used', 3, 'granted', 5));
    const inOrder = `${keyPrefix}in-order`;
    await start(inOrder);
    await apply(inOrder, 9, 4);
    await apply(inOrder, 15, 6);
    const reversed = `${keyPrefix}reversed`;
    await start(reversed);
    await apply(reversed, 15, 6);
    // Until the first reservation arrives its units count as used: the gate cannot hand out what it has not seen.
    expect(await counterState(reversed)).toEqual({ used: 7, granted: 15, available: 8 });
    await apply(reversed, 9, 4);
    for (const counter of [inOrder, reversed]) expect(await counterState(counter)).toEqual({ used: 3, granted: 15, available: 12 });

    // Admissions between the two arrivals stay counted.
    const busy = `${keyPrefix}busy`;
    await start(busy);
    await apply(busy, 15, 6);
    await fixture.redis.hincrby(busy, 'used', 5);
    await apply(busy, 9, 4);
    expect(await counterState(busy)).toEqual({ used: 8, granted: 15, available: 7 });

    // A reservation the store refused (0 units) carries the store's total: others' units count as used until they arrive.
    const refused = `${keyPrefix}refused`;
    await start(refused);
    await apply(refused, 15, 0);
    expect(await counterState(refused)).toEqual({ used: 13, granted: 15, available: 2 });
    await apply(refused, 15, 6);
    await apply(refused, 9, 4);
    expect(await counterState(refused)).toEqual({ used: 3, granted: 15, available: 12 });

    // On a counter Redis lost, everything but this reservation counts as used, and the counter expires.
    const lost = `${keyPrefix}lost`;
    await apply(lost, 15, 6);
    expect(await counterState(lost)).toEqual({ used: 9, granted: 15, available: 6 });
    expect(await fixture.redis.pttl(lost)).toBeGreaterThan(0);
  });

  it('seeding starts a missing counter at the store total and leaves an existing one alone', async () => {
    const counter = `${nextPrefix()}seeded`;
    const expireAt = Date.now() + 60_000;
    expect(await fixture.redis.eval(SEED_COUNTER_SCRIPT, 1, counter, 7, expireAt)).toBe(1);
    expect(await counterState(counter)).toEqual({ used: 7, granted: 7, available: 0 });
    expect(await fixture.redis.pttl(counter)).toBeGreaterThan(50_000);
    await fixture.redis.hincrby(counter, 'granted', 3);
    expect(await fixture.redis.eval(SEED_COUNTER_SCRIPT, 1, counter, 0, expireAt)).toBe(0);
    expect(await counterState(counter)).toEqual({ used: 7, granted: 10, available: 3 });
  });
});
