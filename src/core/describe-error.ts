/** The one-line message of anything thrown, for logs and CLI output (never a stack, never the value itself). */
export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Errors whose messages name code (properties, variables), never request data. */
const CODE_ERRORS = new Set(['TypeError', 'RangeError', 'ReferenceError']);

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
