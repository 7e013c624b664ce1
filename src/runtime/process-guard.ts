/**
 * The last resort, not a fix: an exception nothing caught (or a promise rejection nobody handled) is
 * logged with what is known about it and the process keeps serving, because dying would end every other
 * account's in-flight stream. Every such line is a bug to fix at its root.
 */
import type { EventEmitter } from 'node:events';
import { describeCrash } from '../core/describe-error.js';

export function installProcessGuard(target: EventEmitter, logger: { error(message: string): void }): () => void {
  const onUncaught = (error: unknown, origin: string) => {
    logger.error(`${origin === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught exception'} (kept serving; this is a router bug): ${describeCrash(error)}`);
  };
  // Without an 'unhandledRejection' listener Node reports rejections here too, with that origin.
  target.on('uncaughtException', onUncaught);
  return () => void target.off('uncaughtException', onUncaught);
}
