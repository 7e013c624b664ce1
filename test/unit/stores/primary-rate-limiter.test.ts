/**
 * The cluster workers' limiter: decisions made in the primary over a message channel. Here the channel
 * is in-process but behaves like Node's IPC (JSON-serialized, delivered on a later turn); the spawned
 * cluster in test/e2e/cluster-mode.test.ts runs it over real IPC.
 */
import { describe, expect, it } from 'vitest';
import { isClusterMessage, type ClusterChannel, type ClusterMessage } from '../../../src/stores/cluster/cluster-channel.js';
import { createPrimaryRateLimiter } from '../../../src/stores/cluster/create-primary-rate-limiter.js';
import { serveRateLimits } from '../../../src/stores/cluster/serve-rate-limits.js';
import { createMemoryRateLimiter } from '../../../src/stores/memory/create-memory-rate-limiter.js';
import { StoreUnavailableError } from '../../../src/stores/store.js';
import { runRateLimiterContract } from '../../contracts/rate-limiter-contract.js';

type Listener = (message: unknown) => void;

/** A primary answering any number of worker channels from one limiter, with IPC's copy-and-defer delivery. */
function fakePrimary(options: { answer?: boolean } = {}) {
  const serve = serveRateLimits(createMemoryRateLimiter());
  const overIpc = (message: unknown) => JSON.parse(JSON.stringify(message)) as unknown;
  const sent: ClusterMessage[] = [];
  return {
    sent,
    worker(): ClusterChannel & { deliver(message: unknown): void } {
      const listeners = new Set<Listener>();
      const deliver = (message: unknown) => setImmediate(() => listeners.forEach((listener) => listener(overIpc(message))));
      return {
        deliver,
        send(message) {
          sent.push(message);
          if (options.answer === false) return;
          setImmediate(() => serve(overIpc(message), deliver));
        },
        onMessage(listener) {
          listeners.add(listener);
          return () => void listeners.delete(listener);
        },
      };
    },
  };
}

runRateLimiterContract('primary (over a channel)', async () => createPrimaryRateLimiter({ channel: fakePrimary().worker() }));

describe('primary rate limiter', () => {
  it('reports the primary backend', () => {
    expect(createPrimaryRateLimiter({ channel: fakePrimary().worker() }).status()).toEqual({ backend: 'primary' });
  });

  it('admits exactly the limit between several workers asking at once', async () => {
    const primary = fakePrimary();
    const workers = [1, 2, 3].map(() => createPrimaryRateLimiter({ channel: primary.worker() }));
    const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => workers[i % 3]!.admit('acct_a', 25, 1_000 + i)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(25);
    // One window: every admission saw a different count left.
    const remaining = decisions.filter((decision) => decision.allowed).map((decision) => decision.remaining);
    expect(new Set(remaining).size).toBe(25);
    await Promise.all(workers.map((worker) => worker.close()));
  });

  it('answers 503 (StoreUnavailableError) when the primary does not answer in time', async () => {
    const limiter = createPrimaryRateLimiter({ channel: fakePrimary({ answer: false }).worker(), timeoutMs: 20 });
    await expect(limiter.admit('acct_a', 5, 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    await limiter.close();
  });

  it('rejects a pending decision when closed, and ignores messages that are not its answers', async () => {
    const primary = fakePrimary({ answer: false });
    const channel = primary.worker();
    const limiter = createPrimaryRateLimiter({ channel, timeoutMs: 10_000 });
    const pending = limiter.admit('acct_a', 5, 1_000);
    channel.deliver({ router: 'rate-answer', answers: [{ id: 999, decision: {} }] });
    channel.deliver({ router: 'rate-answer', answers: 'none' });
    channel.deliver({ cmd: 'NODE_CLUSTER', act: 'something of node’s own' });
    channel.deliver('text');
    await new Promise((resolve) => setImmediate(resolve));
    await limiter.close();
    await expect(pending).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('sends the questions of one event-loop turn as one message', async () => {
    const primary = fakePrimary();
    const limiter = createPrimaryRateLimiter({ channel: primary.worker() });
    await Promise.all([limiter.admit('acct_a', 5, 1_000), limiter.admit('acct_b', 5, 1_000), limiter.peek('acct_a', 5, 1_001)]);
    expect(primary.sent).toHaveLength(1);
    await limiter.close();
  });

  it('refuses malformed questions on the primary side instead of deciding them', async () => {
    const serve = serveRateLimits(createMemoryRateLimiter());
    const answered = new Promise<ClusterMessage>((resolve) => {
      const question = { op: 'admit', accountId: 'acct_a', nowMs: 1_000 };
      const questions = [-1, 1.5, 'ten', null, 3].map((limit, id) => ({ ...question, id, limit }));
      expect(serve({ router: 'rate', questions }, resolve)).toBe(true);
    });
    const answer = await answered;
    expect(isClusterMessage(answer, 'rate-answer') && answer.answers.map((one) => one.decision?.allowed ?? 'refused')).toEqual(['refused', 'refused', 'refused', 'refused', true]);
    expect(serve({ router: 'metrics', id: 1 }, () => undefined)).toBe(false);
  });
});
