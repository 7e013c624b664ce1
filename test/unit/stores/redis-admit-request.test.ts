/**
 * The quota gate's one-script admission (stores/redis/admit-request-script.ts) against a real Redis and
 * PostgreSQL: the count, the in-flight lease and the minute window are taken together or not at all, and
 * the undo of a call whose answer came too late gives back exactly what that call took.
 */
import { describe, expect, it } from 'vitest';
import type { AlongsideQuota } from '../../../src/stores/quota-ledger.js';
import { ADMIT_REQUEST_SCRIPT, UNDO_ADMIT_REQUEST_SCRIPT } from '../../../src/stores/redis/admit-request-script.js';
import { leasesKey } from '../../../src/stores/redis/lease-keeper.js';
import { windowKey } from '../../../src/stores/redis/create-redis-rate-limiter.js';
import { LIMITS, PERIOD, quotaGateSkipReason, useQuotaGateFixture } from './quota-gate-fixtures.js';

if (quotaGateSkipReason) console.warn(quotaGateSkipReason);

describe.skipIf(quotaGateSkipReason !== undefined)('redis quota gate: one script per request', () => {
  const fixture = useQuotaGateFixture('admit_request');
  const { gate, newAccount, nextPrefix } = fixture;
  const alongside = (perMinute: number, inFlight: number, plan = 'large'): AlongsideQuota => ({
    nowMs: Date.now(),
    limitsByPlan: new Map([[plan, { requestsPerMinute: perMinute, maxConcurrentRequests: inFlight }]]),
  });
  const admit = (ledger: ReturnType<typeof gate>, accountId: string, limits: AlongsideQuota) =>
    ledger.admit({ accountId, period: PERIOD, weight: 1, limitsByPlan: LIMITS }, limits);

  it('a request refused by its slot or its window takes nothing; a released slot is free again', async () => {
    const keyPrefix = nextPrefix();
    const ledger = gate({ keyPrefix });
    const accountId = await newAccount('large');
    const first = await admit(ledger, accountId, alongside(2, 1));
    expect(first).toMatchObject({ admitted: true, used: 1, alongside: { inFlight: { allowed: true, inFlight: 1 }, rate: { allowed: true, remaining: 1 } } });
    // The cap of one is taken: refused by the slot, not counted (the reported count is what the pipeline's refund lowers).
    const second = await admit(ledger, accountId, alongside(2, 1));
    expect(second).toMatchObject({ admitted: true, used: 2, alongside: { inFlight: { allowed: false, inFlight: 1 } } });
    await second.refund();
    expect(await fixture.redis.hget(`${keyPrefix}quota:{${accountId}}:${PERIOD}`, 'used')).toBe('1');
    expect(await fixture.redis.zcard(windowKey(keyPrefix, accountId))).toBe(1);
    first.alongside!.inFlight.release!();
    await expect.poll(() => fixture.redis.zcard(leasesKey(keyPrefix, accountId))).toBe(0);
    // The slot is free again; the window's second place is taken, and then it is full.
    expect(await admit(ledger, accountId, alongside(2, 1))).toMatchObject({ used: 2, alongside: { rate: { allowed: true, remaining: 0 } } });
    const full = await admit(ledger, accountId, alongside(2, 5));
    expect(full).toMatchObject({ used: 3, alongside: { inFlight: { allowed: true }, rate: { allowed: false, remaining: 0 } } });
    // Refused by the window: no lease beyond the one still running, and the count unchanged.
    expect(await fixture.redis.zcard(leasesKey(keyPrefix, accountId))).toBe(1);
    expect(await fixture.redis.hget(`${keyPrefix}quota:{${accountId}}:${PERIOD}`, 'used')).toBe('2');
    await ledger.close();
  });

  it('the undo of a late answer gives back exactly what that call took, once', async () => {
    const keyPrefix = nextPrefix();
    const ledger = gate({ keyPrefix });
    const accountId = await newAccount('big');
    // The gate sets up the card and the counter (and a block of 100) on a first request.
    await admit(ledger, accountId, alongside(100, 100, 'big'));
    const keys = {
      card: `${keyPrefix}quota-card:{${accountId}}`,
      counter: `${keyPrefix}quota:{${accountId}}:${PERIOD}`,
      generation: `${keyPrefix}quota-gen:{${accountId}}`,
      leases: leasesKey(keyPrefix, accountId),
      window: windowKey(keyPrefix, accountId),
    };
    const now = Date.now();
    const reply = (await fixture.redis.eval(ADMIT_REQUEST_SCRIPT, 5, ...Object.values(keys), 1, now, 60_000, 30_000, 'late', `${now}:late`, 'big', 100, 100)) as unknown[];
    expect(reply.slice(0, 4)).toEqual(['admitted', 'big', LIMITS.big, 2]);
    const undo = () => fixture.redis.eval(UNDO_ADMIT_REQUEST_SCRIPT, 3, keys.counter, keys.leases, keys.window, 1, 'late', `${now}:late`);
    expect(await undo()).toBe(1);
    expect(await fixture.redis.hget(keys.counter, 'used')).toBe('1');
    expect(await fixture.redis.zscore(keys.leases, 'late')).toBeNull();
    expect(await fixture.redis.zscore(keys.window, `${now}:late`)).toBeNull();
    // A second undo, or one of a call that never admitted, changes nothing.
    expect(await undo()).toBe(0);
    expect(await fixture.redis.hget(keys.counter, 'used')).toBe('1');
    await ledger.close();
  });
});
