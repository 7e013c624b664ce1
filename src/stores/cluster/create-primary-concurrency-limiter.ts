/**
 * A cluster worker's in-flight limiter: the primary counts every worker's requests in flight per account
 * (serve-in-flight-slots.ts), so N workers admit exactly what one process would, and a worker that dies
 * has its slots given back by the primary. Like the per-minute windows, what a worker asks and gives
 * back during one event-loop turn travels in one IPC message.
 */
import { StoreUnavailableError } from '../store.js';
import { releaseOnce, type ConcurrencyLimiter, type InFlightDecision } from '../concurrency-limiter.js';
import { isClusterMessage, type ClusterChannel, type SlotQuestion } from './cluster-channel.js';

export interface PrimaryConcurrencyLimiterOptions {
  channel: ClusterChannel;
  /** How long a decision may take before the request is answered 503 (default 5 s: the primary is on the same host). */
  timeoutMs?: number;
}

interface Pending {
  resolve(decision: InFlightDecision): void;
  reject(error: Error): void;
  limit: number;
  timer: NodeJS.Timeout;
}

export function createPrimaryConcurrencyLimiter(options: PrimaryConcurrencyLimiterOptions): ConcurrencyLimiter {
  const timeoutMs = options.timeoutMs ?? 5000;
  const pending = new Map<number, Pending>();
  let take: SlotQuestion[] = [];
  let give: number[] = [];
  let flushing = false;
  let nextId = 0;

  const flush = () => {
    flushing = false;
    const message = { router: 'slots' as const, take, give };
    take = [];
    give = [];
    options.channel.send(message);
  };
  const schedule = () => {
    if (flushing) return;
    flushing = true;
    setImmediate(flush);
  };
  const giveBack = (id: number) => {
    give.push(id);
    schedule();
  };

  const stop = options.channel.onMessage((message) => {
    if (!isClusterMessage(message, 'slots-answer') || !Array.isArray(message.answers)) return;
    for (const { id, allowed, inFlight } of message.answers) {
      const waiting = pending.get(id);
      if (!waiting) continue;
      pending.delete(id);
      clearTimeout(waiting.timer);
      if (allowed === undefined) waiting.reject(new StoreUnavailableError('the primary process could not count requests in flight'));
      else if (allowed) waiting.resolve({ allowed, limit: waiting.limit, inFlight: inFlight ?? 0, release: releaseOnce(() => giveBack(id)) });
      else waiting.resolve({ allowed, limit: waiting.limit, inFlight: inFlight ?? 0 });
    }
  });

  return {
    kind: 'primary',
    status: () => ({ backend: 'primary' }),
    acquire(accountId, limit) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          // Should the primary grant it after all, the slot must not stay taken: IPC keeps order, so this
          // give-back arrives after the question and frees whatever it was answered.
          giveBack(id);
          reject(new StoreUnavailableError(`the primary process did not count requests in flight within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve, reject, limit, timer });
        take.push({ id, accountId, limit });
        schedule();
      });
    },
    async close() {
      stop();
      for (const [id, waiting] of pending) {
        clearTimeout(waiting.timer);
        waiting.reject(new StoreUnavailableError('the in-flight limiter closed'));
        pending.delete(id);
      }
    },
  };
}
