/**
 * The credential circuits contract on its three backends: memory (one process: both workers hold the
 * same CredentialHealth), a cluster's primary (an in-process channel with IPC's copy-and-defer delivery,
 * relayed to every worker), and Redis (two instances on one key prefix; skipped without
 * ROUTER_TEST_REDIS_URL).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { CredentialHealth } from '../../../src/routing/credential-health.js';
import type { ClusterChannel, ClusterMessage } from '../../../src/stores/cluster/cluster-channel.js';
import { relayCredentialCircuits, shareCredentialCircuits } from '../../../src/stores/cluster/share-credential-circuits.js';
import { shareCredentialCircuitsInRedis } from '../../../src/stores/redis/share-credential-circuits.js';
import { runCredentialCircuitsContract } from '../../contracts/credential-circuits-contract.js';
import { deleteRedisKeys } from '../../support/service-cleanup.js';

const BREAKER = { failureThreshold: 3, cooldownMs: 30_000 };

function sharedClock() {
  let now = Date.now();
  return { clock: { now: () => now }, advance: (ms: number) => void (now += ms) };
}

runCredentialCircuitsContract('memory', async () => {
  const { clock, advance } = sharedClock();
  const health = new CredentialHealth(BREAKER, clock);
  return { a: health, b: health, advance, stop: async () => undefined };
});

runCredentialCircuitsContract('primary', async () => {
  const { clock, advance } = sharedClock();
  type Listener = (message: unknown) => void;
  const workers: Array<Set<Listener>> = [];
  const overIpc = (message: unknown) => JSON.parse(JSON.stringify(message)) as unknown;
  const relay = relayCredentialCircuits((message) => {
    for (const listeners of workers) setImmediate(() => listeners.forEach((listener) => listener(overIpc(message))));
  });
  const channel = (): ClusterChannel => {
    const listeners = new Set<Listener>();
    workers.push(listeners);
    return {
      send: (message: ClusterMessage) => void setImmediate(() => relay(overIpc(message), () => undefined)),
      onMessage(listener) {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    };
  };
  const a = new CredentialHealth(BREAKER, clock);
  const b = new CredentialHealth(BREAKER, clock);
  const stops = [shareCredentialCircuits(a, channel(), 101), shareCredentialCircuits(b, channel(), 102)];
  return { a, b, advance, stop: async () => stops.forEach((stop) => stop()) };
});

const redisUrl = process.env.ROUTER_TEST_REDIS_URL;
describe.skipIf(!redisUrl)('redis', () => {
  const runPrefix = `rl:test:${randomBytes(4).toString('hex')}:`;
  let pairs = 0;
  afterAll(() => deleteRedisKeys(redisUrl ?? '', runPrefix));
  runCredentialCircuitsContract('redis', async () => {
    const { clock, advance } = sharedClock();
    const keyPrefix = `${runPrefix}${pairs++}:`;
    const a = new CredentialHealth(BREAKER, clock);
    const b = new CredentialHealth(BREAKER, clock);
    const stops = await Promise.all([a, b].map((health) => shareCredentialCircuitsInRedis(health, { url: redisUrl ?? '', keyPrefix, clock })));
    return { a, b, advance, stop: async () => void (await Promise.all(stops.map((stop) => stop()))) };
  });

  it('an instance that starts later reads the circuits still open, which expire in Redis with the wait', async () => {
    const { clock } = sharedClock();
    const keyPrefix = `${runPrefix}late:`;
    const early = new CredentialHealth(BREAKER, clock);
    const stopEarly = await shareCredentialCircuitsInRedis(early, { url: redisUrl ?? '', keyPrefix, clock });
    early.recordFailure('acct_1', 'openai', 'sk-one', { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', retryAfterSeconds: 60 });
    early.recordFailure('acct_2', 'openai', 'sk-two', { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', retryAfterSeconds: 0.05 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const late = new CredentialHealth(BREAKER, clock);
    const stopLate = await shareCredentialCircuitsInRedis(late, { url: redisUrl ?? '', keyPrefix, clock });
    expect(late.skipReason('acct_1', 'openai', 'sk-one')).toBe('credential_throttled');
    // Its 50 ms were up before the late instance started: Redis had already dropped it.
    expect(late.skipReason('acct_2', 'openai', 'sk-two')).toBeUndefined();
    await Promise.all([stopEarly(), stopLate()]);
  });
});
