/**
 * The primary's side of the shared per-minute windows: answers each worker's `rate` message from one
 * limiter (the memory limiter: one exact sliding-window log per account) and sends the decision back to
 * the worker that asked. Decisions are made one message at a time on the primary's event loop, so two
 * workers asking at once are serialized exactly like two requests in one process.
 */
import type { RateLimiter } from '../rate-limiter.js';
import { isClusterMessage, type PrimaryHandler } from './cluster-channel.js';

export function serveRateLimits(limiter: RateLimiter): PrimaryHandler {
  return (message, reply) => {
    if (!isClusterMessage(message, 'rate')) return false;
    const { id, op, accountId, limit, nowMs } = message;
    const wellFormed = (op === 'admit' || op === 'peek') && typeof accountId === 'string' && Number.isInteger(limit) && limit >= 0 && Number.isFinite(nowMs);
    if (!wellFormed) {
      reply({ router: 'rate-error', id });
      return true;
    }
    const decided = op === 'admit' ? limiter.admit(accountId, limit, nowMs) : limiter.peek(accountId, limit, nowMs);
    decided.then(
      (decision) => reply({ router: 'rate-answer', id, decision }),
      () => reply({ router: 'rate-error', id }),
    );
    return true;
  };
}
