/**
 * The Redis monthly quota gate against a real PostgreSQL (and SQLite) store and a real Redis. The gate
 * must be exactly as strict as the store's own admission: never more than the limit under concurrency,
 * across instances, after Redis loses its keys or while either service is away.
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { quotaPeriod } from '../../../src/core/quota-period.js';
import { forgetOnAccountChange } from '../../../src/stores/forget-on-account-change.js';
import { createPostgresStore } from '../../../src/stores/postgres/create-postgres-store.js';
import type { QuotaDecision, QuotaLedger } from '../../../src/stores/quota-ledger.js';
import { createRedisQuotaGate, reservationBlock, type RedisQuotaGateOptions } from '../../../src/stores/redis/create-redis-quota-gate.js';
import { APPLY_RESERVATION_SCRIPT, FILL_CARD_SCRIPT, FORGET_CARD_SCRIPT, SEED_COUNTER_SCRIPT } from '../../../src/stores/redis/quota-gate-scripts.js';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import { NotFoundInStoreError, StoreUnavailableError, type Store } from '../../../src/stores/store.js';

const postgresUrl = process.env.ROUTER_TEST_POSTGRES_URL;
const redisUrl = process.env.ROUTER_TEST_REDIS_URL;
if (!postgresUrl || !redisUrl) {
  console.warn('skipping Redis quota gate tests: set ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL (e.g. postgres://postgres@127.0.0.1:5432/test, redis://127.0.0.1:6379)');
}

const run = randomBytes(4).toString('hex');
const schema = `test_quota_gate_${run}`;
// Every test gets its own key prefix under this run's, so tests never share cards or counters.
const runPrefix = `rl:test:gate:${run}:`;
let prefixes = 0;
const nextPrefix = (): string => `${runPrefix}${prefixes++}:`;

// Counters expire a day after their period ends, so the tests use the real current month and the next.
const PERIOD = quotaPeriod(Date.now()).key;
const NEXT_PERIOD = quotaPeriod(Date.parse(quotaPeriod(Date.now()).resetsAt)).key;
/** One plan per block size: reservationBlock(37) = 1, (200) = 2, (1000) = 10, (1,000,000) = 100. */
const LIMITS = { tiny: 3, small: 2, medium: 5, ten: 10, large: 20, exact: 37, hundred: 100, mid: 200, thousand: 1000, big: 1_000_000 };

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Relay {
  port: number;
  /** Reset every connection and stop listening: the peer is refused at once. */
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Keep the connections open but pass nothing on: a hung network, where nothing is refused. */
  freeze(): void;
  thaw(): void;
}

/** A TCP relay in front of Redis or PostgreSQL that a test can cut, restore or freeze, on the same port. */
async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const held: Array<() => void> = [];
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk) => (frozen ? held.push(() => to.write(chunk)) : to.write(chunk)));
  const makeServer = (): Server =>
    createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket)).on('error', () => undefined);
      }
      forward(client, upstream);
      forward(upstream, client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  const listen = (server: Server, port: number): Promise<number> =>
    new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  let server = makeServer();
  const port = await listen(server, 0);
  return {
    port,
    async cut() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
    async restore() {
      server = makeServer();
      await listen(server, port);
    },
    freeze: () => void (frozen = true),
    thaw() {
      frozen = false;
      for (const write of held.splice(0)) write();
    },
  };
}

/** `url` with its host and port replaced by the relay's. */
function viaRelay(url: string, relay: Relay): string {
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relay.port);
  return relayed.toString();
}

const hostOf = (url: string, defaultPort: number) => ({ host: new URL(url).hostname, port: Number(new URL(url).port || defaultPort) });

const admittedUsed = (decisions: readonly QuotaDecision[]): number[] =>
  decisions
    .filter((decision) => decision.admitted)
    .map((decision) => decision.used)
    .sort((a, b) => a - b);
const oneTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/**
 * The same store, counting the holds the gate asks for; `beforeHold(n)` runs (real store calls) just
 * before the n-th hold, to let "another instance" act between two of this gate's store calls.
 */
function watchHolds(store: Store, beforeHold: (n: number) => Promise<unknown> = async () => undefined) {
  let holds = 0;
  const watched: Store = {
    ...store,
    async holdQuota(input) {
      await beforeHold(++holds);
      return store.holdQuota(input);
    },
  };
  return { store: watched, holds: () => holds };
}

describe.skipIf(!postgresUrl || !redisUrl)('redis quota gate', () => {
  const databaseUrl = postgresUrl ?? '';
  const redisAt = redisUrl ?? '';
  let store: Store;
  let redis: Redis;
  const opened: Array<{ close(): Promise<unknown> }> = [];

  beforeAll(async () => {
    store = createPostgresStore({ url: databaseUrl, schema, clock: systemClock, poolSize: 8 });
    await store.migrate();
    redis = new Redis(redisAt);
  });

  afterEach(async () => {
    // Closing twice is harmless; tests that close a gate themselves do so to flush its settlements.
    await Promise.all(opened.splice(0).map((resource) => resource.close()));
  });

  afterAll(async () => {
    await store?.close();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    const keys = await redis.keys(`${runPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  function gate(options: Partial<RedisQuotaGateOptions> & { keyPrefix: string }): QuotaLedger {
    const ledger = createRedisQuotaGate({ store, url: redisAt, settleMs: 50, storeProbeMs: 50, ...options });
    opened.push(ledger);
    return ledger;
  }
  const newAccount = async (plan: string, on: Store = store) => (await on.createAccount({ email: 'gate@example.com', plan }, 'cli')).id;
  const admitOnce = (ledger: QuotaLedger, accountId: string, period = PERIOD, weight = 1) =>
    ledger.admit({ accountId, period, weight, limitsByPlan: LIMITS });
  const admitAll = (ledgers: readonly QuotaLedger[], accountId: string, calls: number, period = PERIOD) =>
    Promise.all(Array.from({ length: calls }, (_, i) => admitOnce(ledgers[i % ledgers.length]!, accountId, period)));
  const cardKey = (prefix: string, accountId: string) => `${prefix}quota-card:{${accountId}}`;
  const generationKey = (prefix: string, accountId: string) => `${prefix}quota-gen:{${accountId}}`;
  const counterKey = (prefix: string, accountId: string, period = PERIOD) => `${prefix}quota:{${accountId}}:${period}`;

  it('sizes reservation blocks at 1% of the limit, between 1 and 100', () => {
    expect([0, 37, 199, 200, 1000, 10_000, 1_000_000].map(reservationBlock)).toEqual([1, 1, 1, 2, 10, 100, 100]);
  });

  describe.each([
    ['postgres', async () => store],
    [
      'sqlite',
      async () => {
        const sqlite = createSqliteStore({ path: ':memory:', clock: systemClock });
        await sqlite.migrate();
        opened.push(sqlite);
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

  it('reserves a block of 1% of a large limit: ten admissions cost one store hold', async () => {
    const watched = watchHolds(store);
    const ledger = gate({ store: watched.store, keyPrefix: nextPrefix() });
    const accountId = await newAccount('big');
    expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: true, used: 1, limit: 1_000_000 });
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
    for (let i = 2; i <= 10; i++) expect((await admitOnce(ledger, accountId)).used).toBe(i);
    expect(watched.holds()).toBe(1);
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
    await ledger.close();
    expect(await store.readQuota(accountId, PERIOD)).toBe(10);
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
  });

  it('reserves for every request waiting on the instance at once, not block by block', async () => {
    const ledger = gate({ keyPrefix: nextPrefix() });
    const accountId = await newAccount('thousand');
    const decisions = await admitAll([ledger], accountId, 50);
    expect(admittedUsed(decisions)).toEqual(oneTo(50));
    // One hold of 50 (the demand), not five of reservationBlock(1000) = 10, and nothing held beyond it.
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(50);
  });

  it('settles admissions into the store within the settle interval, without closing', async () => {
    const ledger = gate({ keyPrefix: nextPrefix(), settleMs: 30 });
    const accountId = await newAccount('big');
    for (let i = 0; i < 4; i++) await admitOnce(ledger, accountId);
    await until(async () => (await store.readQuota(accountId, PERIOD)) === 4, 1000);
    // Settling moved the units from held to used: the total the limit is checked against did not change.
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
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
    expect(await store.readQuota(accountId, PERIOD)).toBe(2);
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(3);
  });

  it('applies plan changes and deactivation made through forgetOnAccountChange to the very next admission', async () => {
    const keyPrefix = nextPrefix();
    const ledger = gate({ keyPrefix });
    const failures: unknown[] = [];
    const accounts = forgetOnAccountChange(store, ledger, (_id, error) => failures.push(error));
    const accountId = await newAccount('medium');
    for (let i = 0; i < 4; i++) await admitOnce(ledger, accountId);

    await accounts.setAccountPlan(accountId, 'small', 'cli');
    expect(await admitOnce(ledger, accountId)).toMatchObject({ plan: 'small', status: 'active', admitted: false, used: 4, limit: 2 });
    await accounts.setAccountPlan(accountId, 'large', 'cli');
    expect(await admitOnce(ledger, accountId)).toMatchObject({ plan: 'large', status: 'active', admitted: true, used: 5, limit: 20 });
    await accounts.deactivateAccount(accountId, 'cli');
    expect(await admitOnce(ledger, accountId)).toMatchObject({ plan: 'large', status: 'inactive', admitted: false });
    expect(failures).toEqual([]);

    await ledger.close();
    expect(await store.readQuota(accountId, PERIOD)).toBe(5);
  });

  it('finds a plan change Redis was not told about at the next reservation, and any change once the card expires', async () => {
    const ledger = gate({ keyPrefix: nextPrefix(), cardTtlMs: 500 });
    const downgraded = await newAccount('medium');
    await admitOnce(ledger, downgraded);
    await admitOnce(ledger, downgraded);
    // Straight to the store, bypassing forgetOnAccountChange: the card still says `medium`, but the gate
    // has no unit left (blocks of 1), so the next admission reserves, and the store's hold sees the new plan.
    await store.setAccountPlan(downgraded, 'small', 'cli');
    expect(await admitOnce(ledger, downgraded)).toMatchObject({ plan: 'small', admitted: false, used: 2, limit: 2 });

    const deactivated = await newAccount('big');
    await admitOnce(ledger, deactivated);
    await store.deactivateAccount(deactivated, 'cli');
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

  describe('scripts', () => {
    const fill = (prefix: string, accountId: string, seen: string, plan: string, status: string, limit: number, ttlMs: number) =>
      redis.eval(FILL_CARD_SCRIPT, 2, cardKey(prefix, accountId), generationKey(prefix, accountId), seen, plan, status, limit, ttlMs);
    const apply = (counter: string, total: number, reserved: number) =>
      redis.eval(APPLY_RESERVATION_SCRIPT, 1, counter, total, reserved, Date.now() + 60_000);
    const counterState = async (counter: string) => {
      const { used, granted } = await redis.hgetall(counter);
      return { used: Number(used), granted: Number(granted), available: Number(granted) - Number(used) };
    };

    it('a card read from the store before a plan change is never written after it', async () => {
      const keyPrefix = nextPrefix();
      const ledger = gate({ keyPrefix });
      const accounts = forgetOnAccountChange(store, ledger, () => undefined);
      const accountId = await newAccount('large');
      // A fill under way: it saw the generation, then read the account from the store...
      const seen = (await redis.get(generationKey(keyPrefix, accountId))) ?? '0';
      const read = await store.getAccount(accountId);
      // ...and the plan changes (committed, card forgotten) before the fill reaches Redis.
      await accounts.setAccountPlan(accountId, 'small', 'cli');
      expect(await fill(keyPrefix, accountId, seen, read!.plan, read!.status, LIMITS.large, 60_000)).toBe(0);
      expect(await redis.exists(cardKey(keyPrefix, accountId))).toBe(0);
      expect(await admitOnce(ledger, accountId)).toMatchObject({ plan: 'small', limit: 2, admitted: true, used: 1 });

      // A fill that saw the current generation writes the card, with its TTL.
      const current = (await redis.get(generationKey(keyPrefix, accountId)))!;
      expect(current).toBe('1');
      expect(await fill(keyPrefix, accountId, current, 'large', 'active', 20, 60_000)).toBe(1);
      expect(await redis.hgetall(cardKey(keyPrefix, accountId))).toEqual({ plan: 'large', status: 'active', limit: '20' });
      expect(await redis.pttl(cardKey(keyPrefix, accountId))).toBeGreaterThan(50_000);
      // Forgetting bumps the generation again and drops the card; the generation itself expires eventually.
      expect(await redis.eval(FORGET_CARD_SCRIPT, 2, cardKey(keyPrefix, accountId), generationKey(keyPrefix, accountId), 5000)).toBe(1);
      expect(await redis.get(generationKey(keyPrefix, accountId))).toBe('2');
      expect(await redis.pttl(generationKey(keyPrefix, accountId))).toBeGreaterThan(0);
    });

    it('two reservations applied in either order leave exactly the reserved, unused units available', async () => {
      const keyPrefix = nextPrefix();
      // Both start from a counter with 3 used of 5 granted; the store then holds 4 (total 9) and 6 (total 15).
      const start = async (counter: string) => void (await redis.hset(counter, 'used', 3, 'granted', 5));
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
      await redis.hincrby(busy, 'used', 5);
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
      expect(await redis.pttl(lost)).toBeGreaterThan(0);
    });

    it('seeding starts a missing counter at the store total and leaves an existing one alone', async () => {
      const counter = `${nextPrefix()}seeded`;
      const expireAt = Date.now() + 60_000;
      expect(await redis.eval(SEED_COUNTER_SCRIPT, 1, counter, 7, expireAt)).toBe(1);
      expect(await counterState(counter)).toEqual({ used: 7, granted: 7, available: 0 });
      expect(await redis.pttl(counter)).toBeGreaterThan(50_000);
      await redis.hincrby(counter, 'granted', 3);
      expect(await redis.eval(SEED_COUNTER_SCRIPT, 1, counter, 0, expireAt)).toBe(0);
      expect(await counterState(counter)).toEqual({ used: 7, granted: 10, available: 3 });
    });
  });

  it('after Redis loses its keys, reseeds from used + held and never admits past the limit', async () => {
    const keyPrefix = nextPrefix();
    const watched = watchHolds(store);
    const ledger = gate({ store: watched.store, keyPrefix });
    const accountId = await newAccount('mid');
    const before = [];
    for (let i = 0; i < 3; i++) before.push(await admitOnce(ledger, accountId));
    expect(before.every((decision) => decision.admitted)).toBe(true);
    // Blocks of reservationBlock(200) = 2: three admissions took two holds, one unit is held but unused.
    const committedAtLoss = await store.readQuotaCommitted(accountId, PERIOD);
    expect(committedAtLoss).toBe(4);

    const keys = await redis.keys(`${keyPrefix}*`);
    expect(keys).toContain(counterKey(keyPrefix, accountId));
    await redis.del(...keys);
    const holdsAtLoss = watched.holds();

    const after = (await admitAll([ledger], accountId, 300)).filter((decision) => decision.admitted).length;
    expect(before.length + after).toBeLessThanOrEqual(200);
    // Conservative by exactly the unused held unit: the reseeded counter took it as used.
    expect(after).toBe(200 - committedAtLoss);
    // Seeded from used + held, the gate asked the store for exactly what was left, in one hold.
    expect(watched.holds() - holdsAtLoss).toBe(1);
    await ledger.close();
    expect(await store.readQuota(accountId, PERIOD)).toBe(before.length + after);
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(200);
  });

  it('decides in the store, exactly, when Redis is unreachable, and says so once', async () => {
    const reasons: string[] = [];
    const ledger = gate({ keyPrefix: nextPrefix(), url: 'redis://127.0.0.1:1', onUnavailable: (reason) => reasons.push(reason) });
    const accountId = await newAccount('large');
    const decisions = await admitAll([ledger], accountId, 50);
    expect(admittedUsed(decisions)).toEqual(oneTo(20));
    expect(ledger.status()).toEqual({ backend: 'store-fallback', reason: expect.stringContaining('ECONNREFUSED') });
    expect(reasons).toHaveLength(1);
    // Decided in the store: counted as used at once, nothing held.
    expect(await store.readQuota(accountId, PERIOD)).toBe(20);
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(20);
    // A refund of a store decision goes back to the store.
    await decisions.find((decision) => decision.admitted)!.refund();
    expect(await store.readQuota(accountId, PERIOD)).toBe(19);
  });

  it('an instance deciding in the store and one on Redis share the limit exactly', async () => {
    const keyPrefix = nextPrefix();
    const instances = [gate({ keyPrefix }), gate({ keyPrefix, url: 'redis://127.0.0.1:1' })];
    const accountId = await newAccount('exact');
    const decisions = await admitAll(instances, accountId, 200);
    expect(instances.map((instance) => instance.status().backend)).toEqual(['redis-gate', 'store-fallback']);
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(37);
    await Promise.all(instances.map((instance) => instance.close()));
    expect(await store.readQuota(accountId, PERIOD)).toBe(37);
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(37);
  });

  it('stays exact across a Redis outage and after Redis comes back', async () => {
    const relay = await startRelay(hostOf(redisAt, 6379));
    const reasons: string[] = [];
    const ledger = gate({ keyPrefix: nextPrefix(), url: viaRelay(redisAt, relay), onUnavailable: (reason) => reasons.push(reason) });
    const accountId = await newAccount('hundred');
    for (let i = 0; i < 5; i++) expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: true, used: i + 1 });
    expect(ledger.status()).toEqual({ backend: 'redis-gate' });

    await relay.cut();
    await until(() => ledger.status().backend === 'store-fallback');
    const during = await admitAll([ledger], accountId, 150);
    // The store saw the gate's five (held) and admits the rest of the hundred.
    expect(admittedUsed(during)).toEqual(oneTo(100).slice(5));
    expect(reasons).toHaveLength(1);

    await relay.restore();
    await until(() => ledger.status().backend === 'redis-gate');
    // Back on Redis, whose counter still says 5: the store's hold refuses, and the gate learns the true total.
    expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: false, used: 100, limit: 100 });
    await ledger.close();
    await relay.cut();
    expect(reasons).toHaveLength(1);
    expect(await store.readQuota(accountId, PERIOD)).toBe(100);
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
  });

  it('fails closed within one store probe interval after the store goes away, even with units reserved', async () => {
    const own = createPostgresStore({ url: databaseUrl, schema, clock: systemClock, poolSize: 2 });
    const ledger = gate({ store: own, keyPrefix: nextPrefix(), storeProbeMs: 50 });
    const accountId = await newAccount('big', own);
    expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: true, used: 1 });
    // 99 units are reserved in Redis: without the probe the gate could go on admitting from them.
    await own.close();
    await sleep(150);
    await expect(admitOnce(ledger, accountId)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(admitOnce(ledger, accountId)).rejects.toBeInstanceOf(StoreUnavailableError);
    // A store outage is not a Redis outage.
    expect(ledger.status()).toEqual({ backend: 'redis-gate' });
    // Closing with settlements the store cannot take does not hang or throw.
    await ledger.close();
  });

  it('goes back to the gate as soon as the store answers again, counting on from Redis', async () => {
    const relay = await startRelay(hostOf(databaseUrl, 5432));
    const own = createPostgresStore({ url: viaRelay(databaseUrl, relay), schema, clock: systemClock, poolSize: 2 });
    opened.push(own);
    const ledger = gate({ store: own, keyPrefix: nextPrefix(), storeProbeMs: 50 });
    const accountId = await newAccount('big');
    expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: true, used: 1 });

    await relay.cut();
    await sleep(150);
    await expect(admitOnce(ledger, accountId)).rejects.toBeInstanceOf(StoreUnavailableError);
    await relay.restore();
    // Decided by the gate from the block held before the outage: used 2. A decision in the store would
    // have said 101 (used + held).
    expect(await admitOnce(ledger, accountId)).toMatchObject({ admitted: true, used: 2 });
    expect(ledger.status()).toEqual({ backend: 'redis-gate' });
    await ledger.close();
    await relay.cut();
    expect(await store.readQuota(accountId, PERIOD)).toBe(2);
    expect(await store.readQuotaCommitted(accountId, PERIOD)).toBe(100);
  });

  it('starts a new period from the store count of that period', async () => {
    const ledger = gate({ keyPrefix: nextPrefix() });
    const accountId = await newAccount('big');
    for (let i = 0; i < 3; i++) await admitOnce(ledger, accountId);
    // The next month already has 5 counted and 2 held in the store (another instance, or decisions made
    // while Redis was away): its counter starts from all 7.
    for (let i = 0; i < 5; i++) await store.admitQuota({ accountId, period: NEXT_PERIOD, weight: 1, limitsByPlan: LIMITS });
    await store.holdQuota({ accountId, period: NEXT_PERIOD, weight: 2, limitsByPlan: LIMITS });
    expect(await admitOnce(ledger, accountId, NEXT_PERIOD)).toMatchObject({ admitted: true, used: 8 });
    expect(await admitOnce(ledger, accountId, PERIOD)).toMatchObject({ admitted: true, used: 4 });
    await ledger.close();
    expect(await store.readQuota(accountId, NEXT_PERIOD)).toBe(6);
    expect(await store.readQuota(accountId, PERIOD)).toBe(4);
  });

  it('peek reads the Redis count while the store has not settled it yet, and the store otherwise', async () => {
    const ledger = gate({ keyPrefix: nextPrefix(), settleMs: 60_000 });
    const accountId = await newAccount('big');
    for (let i = 0; i < 3; i++) await admitOnce(ledger, accountId);
    await store.admitQuota({ accountId, period: NEXT_PERIOD, weight: 2, limitsByPlan: LIMITS });

    expect(await store.readQuota(accountId, PERIOD)).toBe(0);
    expect(await ledger.peek(accountId, PERIOD, LIMITS)).toEqual({ plan: 'big', status: 'active', used: 3, limit: 1_000_000 });
    // No counter in Redis for the next month: the store's count.
    expect(await ledger.peek(accountId, NEXT_PERIOD, LIMITS)).toEqual({ plan: 'big', status: 'active', used: 2, limit: 1_000_000 });
    await ledger.close();
    expect(await store.readQuota(accountId, PERIOD)).toBe(3);
  });

  // Regressions: a reservation that found no room is shared by every request waiting on it, and once
  // rejected them all, though the store had room for some.
  describe('a failed reservation does not reject requests the store has room for', () => {
    it('a light request waiting on a heavy request whose reservation found no room', async () => {
      const ledger = gate({ keyPrefix: nextPrefix() });
      const accountId = await newAccount('ten');
      await admitOnce(ledger, accountId);
      // Five more counted in the store (another instance, or while Redis was away): 6 of 10, room for 4.
      await store.admitQuota({ accountId, period: PERIOD, weight: 5, limitsByPlan: LIMITS });
      const [heavy, light] = await Promise.all([admitOnce(ledger, accountId, PERIOD, 5), admitOnce(ledger, accountId, PERIOD, 1)]);
      expect(heavy).toMatchObject({ admitted: false });
      // The store has room for it: admitted, used 7.
      expect(light).toMatchObject({ admitted: true, used: 7 });
    });

    it('another instance holding a few units between the two holds of one reservation', async () => {
      // Before this gate's second hold (the retry with what was left), another instance holds 2 units.
      let accountId = '';
      const other = (n: number) => (n === 3 ? store.holdQuota({ accountId, period: PERIOD, weight: 2, limitsByPlan: LIMITS }) : Promise.resolve());
      const watched = watchHolds(store, other);
      const ledger = gate({ store: watched.store, keyPrefix: nextPrefix() });
      accountId = await newAccount('hundred');
      await admitOnce(ledger, accountId);
      // 89 more counted in the store: 90 of 100, while the gate's counter still says 1.
      await store.admitQuota({ accountId, period: PERIOD, weight: 89, limitsByPlan: LIMITS });
      // 20 waiting requests: hold 20 (no room), then the other instance takes 2, then hold 10 (no room either).
      const decisions = await admitAll([ledger], accountId, 20);
      expect(watched.holds()).toBeGreaterThanOrEqual(3);
      // 8 units were free in the store throughout: exactly 8 of the 20 are admitted.
      expect(decisions.filter((decision) => decision.admitted)).toHaveLength(8);
    });
  });

  it('fails closed when the store hangs (no answer, no reset) instead of waiting for it', async () => {
    const relay = await startRelay(hostOf(databaseUrl, 5432));
    const own = createPostgresStore({ url: viaRelay(databaseUrl, relay), schema, clock: systemClock, poolSize: 10 });
    const ledger = gate({ store: own, keyPrefix: nextPrefix(), storeProbeMs: 50 });
    const accountId = await newAccount('big');
    await admitOnce(ledger, accountId);
    // Warm connections sit idle in the pool, as in a router that has been serving for a while.
    await Promise.all(Array.from({ length: 10 }, () => own.readQuota(accountId, PERIOD)));
    relay.freeze();
    try {
      await sleep(150);
      // The probe has gone unanswered for two intervals: the gate answers StoreUnavailableError within one
      // more, rather than waiting on an idle connection of the frozen network.
      const answer = admitOnce(ledger, accountId).then(
        () => 'answered',
        (error: unknown) => (error instanceof StoreUnavailableError ? 'store unavailable' : String(error)),
      );
      expect(await Promise.race([answer, sleep(1000).then(() => 'no answer after 1 s')])).toBe('store unavailable');
    } finally {
      relay.thaw();
      await ledger.close();
      await own.close();
      await relay.cut();
    }
  });
});
