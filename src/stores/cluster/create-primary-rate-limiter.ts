/**
 * A cluster worker's requests-per-minute limiter: every decision is made by the primary process, which
 * keeps one exact sliding-window log per account for all workers (serve-rate-limits.ts), so N workers
 * admit exactly what one process would. One IPC round trip per event-loop turn (the decisions asked
 * during it travel together); docs/limits.md has the
 * measurements against the other shared windows (SQLite, Redis).
 */
import { StoreUnavailableError } from '../store.js';
import type { RateDecision, RateLimiter } from '../rate-limiter.js';
import { isClusterMessage, type ClusterChannel, type RateQuestion } from './cluster-channel.js';

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
  let batch: RateQuestion[] = [];
  let nextId = 0;
  const stop = options.channel.onMessage((message) => {
    if (!isClusterMessage(message, 'rate-answer') || !Array.isArray(message.answers)) return;
    for (const { id, decision } of message.answers) {
      const waiting = pending.get(id);
      if (!waiting) continue;
      pending.delete(id);
      clearTimeout(waiting.timer);
      if (decision) waiting.resolve(decision);
      else waiting.reject(new StoreUnavailableError('the primary process could not decide the rate limit'));
    }
  });

  // Every question asked during one event-loop turn goes in one message: under load a worker has many
  // requests in flight, and one IPC write and read per turn costs far less than one per request.
  const flush = () => {
    const questions = batch;
    batch = [];
    options.channel.send({ router: 'rate', questions });
  };

  function ask(op: 'admit' | 'peek', accountId: string, limit: number, nowMs: number, windowMs: number | undefined): Promise<RateDecision> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new StoreUnavailableError(`the primary process did not decide the rate limit within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      if (batch.length === 0) setImmediate(flush);
      batch.push(windowMs === undefined ? { id, op, accountId, limit, nowMs } : { id, op, accountId, limit, nowMs, windowMs });
    });
  }

  return {
    kind: 'primary',
    status: () => ({ backend: 'primary' }),
    admit: (accountId, limit, nowMs, windowMs) => ask('admit', accountId, limit, nowMs, windowMs),
    peek: (accountId, limit, nowMs, windowMs) => ask('peek', accountId, limit, nowMs, windowMs),
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
