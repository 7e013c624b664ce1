/**
 * A cluster worker's requests-per-minute limiter: every decision is made by the primary process, which
 * keeps one exact sliding-window log per account for all workers (serve-rate-limits.ts), so N workers
 * admit exactly what one process would. One IPC round trip per decision; docs/limits.md has the
 * measurements against the other shared windows (SQLite, Redis).
 */
import { StoreUnavailableError } from '../store.js';
import type { RateDecision, RateLimiter } from '../rate-limiter.js';
import { isClusterMessage, type ClusterChannel } from './cluster-channel.js';

export interface PrimaryRateLimiterOptions {
  channel: ClusterChannel;
  /** How long a decision may take before the request is answered 503 (default 5 s: the primary is on the same host). */
  timeoutMs?: number;
}

interface Pending {
  resolve(decision: RateDecision): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export function createPrimaryRateLimiter(options: PrimaryRateLimiterOptions): RateLimiter {
  const timeoutMs = options.timeoutMs ?? 5000;
  const pending = new Map<number, Pending>();
  let nextId = 0;
  const stop = options.channel.onMessage((message) => {
    const answered = isClusterMessage(message, 'rate-answer') || isClusterMessage(message, 'rate-error') ? message : undefined;
    const waiting = answered && pending.get(answered.id);
    if (!answered || !waiting) return;
    pending.delete(answered.id);
    clearTimeout(waiting.timer);
    if (isClusterMessage(answered, 'rate-answer')) waiting.resolve(answered.decision);
    else waiting.reject(new StoreUnavailableError('the primary process could not decide the rate limit'));
  });

  function ask(op: 'admit' | 'peek', accountId: string, limit: number, nowMs: number): Promise<RateDecision> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new StoreUnavailableError(`the primary process did not decide the rate limit within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      options.channel.send({ router: 'rate', id, op, accountId, limit, nowMs });
    });
  }

  return {
    kind: 'primary',
    status: () => ({ backend: 'primary' }),
    admit: (accountId, limit, nowMs) => ask('admit', accountId, limit, nowMs),
    peek: (accountId, limit, nowMs) => ask('peek', accountId, limit, nowMs),
    async close() {
      stop();
      for (const [id, waiting] of pending) {
        clearTimeout(waiting.timer);
        waiting.reject(new StoreUnavailableError('the rate limiter closed'));
        pending.delete(id);
      }
    },
  };
}
