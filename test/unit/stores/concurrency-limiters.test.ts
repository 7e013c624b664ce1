/**
 * The in-flight limiters: the contract run against each (the Redis one against a real Redis when
 * ROUTER_TEST_REDIS_URL is set), plus what only one of them does: the primary giving back a dead
 * worker's slots, Redis leases that expire when their instance stops refreshing them and live on while
 * it does, and two Redis instances sharing one count.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterChannel, ClusterMessage } from '../../../src/stores/cluster/cluster-channel.js';
import { createPrimaryConcurrencyLimiter } from '../../../src/stores/cluster/create-primary-concurrency-limiter.js';
import { serveInFlightSlots, type SlotHolder } from '../../../src/stores/cluster/serve-in-flight-slots.js';
import { createMemoryConcurrencyLimiter } from '../../../src/stores/memory/create-memory-concurrency-limiter.js';
import { createRedisConcurrencyLimiter } from '../../../src/stores/redis/create-redis-concurrency-limiter.js';
import { StoreUnavailableError } from '../../../src/stores/store.js';
import { runConcurrencyLimiterContract } from '../../contracts/concurrency-limiter-contract.js';
import { deleteRedisKeys } from '../../support/service-cleanup.js';

/** node:cluster as the primary sees it, with workers whose messages are copied and delivered a turn later, as IPC does. */
function fakeCluster() {
  const cluster = new EventEmitter();
  const slots = serveInFlightSlots(cluster as never);
  let ids = 0;
  const overIpc = (message: unknown) => JSON.parse(JSON.stringify(message)) as unknown;
  return {
    slots,
    worker(): ClusterChannel & { exit(): void } {
      const listeners = new Set<(message: unknown) => void>();
      let connected = true;
      const holder: SlotHolder = {
        id: ++ids,
        isConnected: () => connected,
        send(message: ClusterMessage) {
          setImmediate(() => listeners.forEach((listener) => listener(overIpc(message))));
          return true;
        },
      };
      return {
        send: (message) => void setImmediate(() => connected && cluster.emit('message', holder, overIpc(message))),
        onMessage(listener) {
          listeners.add(listener);
          return () => void listeners.delete(listener);
        },
        exit() {
          connected = false;
          cluster.emit('exit', holder);
        },
      };
    },
  };
}

runConcurrencyLimiterContract('memory', async () => createMemoryConcurrencyLimiter());

describe('in this process', () => {
  it('answers at once, without a promise, so the request path need not await it', () => {
    const limiter = createMemoryConcurrencyLimiter();
    const taken = limiter.acquire('acct_a', 1);
    expect(taken).not.toBeInstanceOf(Promise);
    expect(taken).toMatchObject({ allowed: true, inFlight: 1 });
    expect(limiter.acquire('acct_a', 1)).toMatchObject({ allowed: false, inFlight: 1 });
  });
});

describe('in the primary, over IPC', () => {
  const cluster = fakeCluster();
  runConcurrencyLimiterContract('primary', async () => createPrimaryConcurrencyLimiter({ channel: cluster.worker() }));

  it('counts every worker against one cap: 60 takes spread over 3 workers admit exactly the cap', async () => {
    const workers = [0, 1, 2].map(() => createPrimaryConcurrencyLimiter({ channel: cluster.worker() }));
    const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => workers[i % 3]!.acquire('acct_workers', 9)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(9);
    expect(cluster.slots.inFlight('acct_workers')).toBe(9);
  });

  it("gives back a dead worker's slots, and only its own", async () => {
    const [dying, living] = [cluster.worker(), cluster.worker()];
    const [a, b] = [createPrimaryConcurrencyLimiter({ channel: dying }), createPrimaryConcurrencyLimiter({ channel: living })];
    await Promise.all([a.acquire('acct_dies', 4), a.acquire('acct_dies', 4), a.acquire('acct_dies', 4), b.acquire('acct_dies', 4)]);
    expect((await b.acquire('acct_dies', 4)).allowed).toBe(false);
    dying.exit();
    expect(cluster.slots.inFlight('acct_dies')).toBe(1);
    expect((await b.acquire('acct_dies', 4)).allowed).toBe(true);
  });

  it('fails closed (store_unavailable) when the primary does not answer, and gives the slot back should it answer late', async () => {
    const silent: ClusterChannel = { send: () => undefined, onMessage: () => () => undefined };
    const limiter = createPrimaryConcurrencyLimiter({ channel: silent, timeoutMs: 50 });
    await expect(limiter.acquire('acct_silent', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    const slow = cluster.worker();
    const sent: ClusterMessage[] = [];
    const late = createPrimaryConcurrencyLimiter({ channel: { send: (message) => void sent.push(message), onMessage: slow.onMessage }, timeoutMs: 20 });
    await expect(late.acquire('acct_late', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // What the worker sent: the question, then the give-back of the same id after its timeout.
    expect(sent).toEqual([
      { router: 'slots', take: [{ id: 0, accountId: 'acct_late', limit: 1 }], give: [] },
      { router: 'slots', take: [], give: [0] },
    ]);
    for (const message of sent) slow.send(message);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cluster.slots.inFlight('acct_late')).toBe(0);
    await Promise.all([limiter.close(), late.close()]);
  });
});

const url = process.env.ROUTER_TEST_REDIS_URL;
if (!url) console.warn('skipping Redis in-flight limiter tests: set ROUTER_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379)');

describe.skipIf(!url)('in Redis, as leases', () => {
  const redisUrl = url ?? '';
  const keyPrefix = `rl:test:${randomBytes(4).toString('hex')}:`;
  afterAll(() => deleteRedisKeys(redisUrl, keyPrefix));

  runConcurrencyLimiterContract('redis', async () => createRedisConcurrencyLimiter({ url: redisUrl, keyPrefix }), { runs: 25 });

  it('two instances share one count exactly: 80 takes at once, spread over both, admit exactly the cap', async () => {
    const instances = [createRedisConcurrencyLimiter({ url: redisUrl, keyPrefix }), createRedisConcurrencyLimiter({ url: redisUrl, keyPrefix })];
    const decisions = await Promise.all(Array.from({ length: 80 }, (_, i) => instances[i % 2]!.acquire('acct_two_instances', 11)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(11);
    expect(instances.map((instance) => instance.status())).toEqual([{ backend: 'redis' }, { backend: 'redis' }]);
    await Promise.all(instances.map((instance) => instance.close()));
  });

  it("lets a dead instance's leases expire, while a live instance's refreshed leases outlast their first deadline", async () => {
    // A second: the living lease is refreshed every third of it, and a loaded CI machine once kept this
    // process from running for longer than 300 ms, so the living lease lapsed between two refreshes.
    const leaseMs = 1000;
    const living = createRedisConcurrencyLimiter({ url: redisUrl, keyPrefix, leaseMs });
    const held = await living.acquire('acct_leases', 2);
    expect(held.allowed).toBe(true);
    // A dead instance: its lease is in Redis, and nobody refreshes or removes it.
    const raw = new Redis(redisUrl);
    const [seconds, micros] = await raw.time();
    await raw.zadd(`${keyPrefix}inflight:{acct_leases}`, Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) + leaseMs, 'dead-instance:0');
    expect(await living.acquire('acct_leases', 2)).toEqual({ allowed: false, limit: 2, inFlight: 2 });
    await new Promise((resolve) => setTimeout(resolve, leaseMs * 2));
    // The dead lease expired; the living one was refreshed and still counts.
    const after = await living.acquire('acct_leases', 2);
    expect(after).toMatchObject({ allowed: true, inFlight: 2 });
    expect(await raw.zcard(`${keyPrefix}inflight:{acct_leases}`)).toBe(2);
    held.release!();
    after.release!();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await raw.zcard(`${keyPrefix}inflight:{acct_leases}`)).toBe(0);
    raw.disconnect();
    await living.close();
  });

  it('caps per instance while Redis is unreachable, and says so', async () => {
    const limiter = createRedisConcurrencyLimiter({ url: 'redis://127.0.0.1:1', keyPrefix });
    expect((await limiter.acquire('acct_away', 1)).allowed).toBe(true);
    expect((await limiter.acquire('acct_away', 1)).allowed).toBe(false);
    expect(limiter.status().backend).toBe('memory-fallback');
    await limiter.close();
  });
});
