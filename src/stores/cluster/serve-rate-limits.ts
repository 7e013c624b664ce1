/**
 * The primary's side of the shared per-minute windows: answers each worker's `rate` message from one
 * limiter (the memory limiter: one exact sliding-window log per account) and sends the decision back to
 * the worker that asked. Decisions are made one message at a time on the primary's event loop, so two
 * workers asking at once are serialized exactly like two requests in one process.
 */
import type { RateLimiter } from '../rate-limiter.js';
import { isClusterMessage, type PrimaryHandler, type RateAnswer, type RateQuestion } from './cluster-channel.js';

export function serveRateLimits(limiter: RateLimiter): PrimaryHandler {
  const decide = async (question: RateQuestion): Promise<RateAnswer> => {
    const { id, op, accountId, limit, nowMs, windowMs } = question;
    const wellFormed =
      (op === 'admit' || op === 'peek') &&
      typeof accountId === 'string' &&
      Number.isInteger(limit) &&
      limit >= 0 &&
      Number.isFinite(nowMs) &&
      (windowMs === undefined || (Number.isInteger(windowMs) && windowMs > 0));
    if (!wellFormed) return { id };
    try {
      return { id, decision: op === 'admit' ? await limiter.admit(accountId, limit, nowMs, windowMs) : await limiter.peek(accountId, limit, nowMs, windowMs) };
    } catch {
      return { id };
    }
  };
  return (message, reply) => {
    if (!isClusterMessage(message, 'rate')) return false;
    if (!Array.isArray(message.questions)) return true;
    // Decided in the order asked: the memory limiter decides synchronously, so the batch is one step.
    void Promise.all(message.questions.map(decide)).then((answers) => reply({ router: 'rate-answer', answers }));
    return true;
  };
}
