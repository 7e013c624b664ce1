/**
 * The last resort, not a fix: an exception nothing caught (or a promise rejection nobody handled) is
 * logged with what is known about it and the process keeps serving, because dying would end every other
 * account's in-flight stream. Every such line is a bug to fix at its root.
 */
import type { EventEmitter } from 'node:events';

/** Errors whose messages name code (properties, variables), never request data. */
const CODE_ERRORS = new Set(['TypeError', 'RangeError', 'ReferenceError']);

export function installProcessGuard(target: EventEmitter, logger: { error(message: string): void }): () => void {
  const onUncaught = (error: unknown, origin: string) => {
    logger.error(`${origin === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught exception'} (kept serving; this is a router bug): ${describeCrash(error)}`);
  };
  // Without an 'unhandledRejection' listener Node reports rejections here too, with that origin.
  target.on('uncaughtException', onUncaught);
  return () => void target.off('uncaughtException', onUncaught);
}

/**
 * Name, code and stack frames. The message is kept only for programming errors: others (a SyntaxError
 * from JSON.parse, an Error from a driver) may quote the input they choked on, which can be a prompt.
 */
export function describeCrash(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${typeof error}`;
  const code = (error as { code?: unknown }).code;
  const frames = (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).slice(0, 8).map((line) => line.trim());
  const message = CODE_ERRORS.has(error.name) ? `: ${error.message}` : '';
  return `${error.name}${typeof code === 'string' ? ` [${code}]` : ''}${message}${frames.length ? ` | ${frames.join(' | ')}` : ''}`;
}
