/**
 * How commands talk to the operator: with --json exactly one JSON document on stdout, otherwise human
 * lines through consola. Operational failures are CliFailure (exit 1, one-line reason); bad arguments
 * are commander's usage errors (exit 2).
 */
import { createConsola } from 'consola';

export class CliFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliFailure';
  }
}

export interface OutputOptions {
  json?: boolean;
}

/** Print the command's result: the JSON document, or the human rendering. */
export function emit(options: OutputOptions, document: unknown, human: () => void): void {
  if (options.json) process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  else human();
}

// The operator reads these lines and copies from them (a key, a link), so they are the same wherever the
// command runs: consola's default swaps in its basic reporter under CI, which prefixes every line with
// its type ("[log] http://…"), and that would break a script that pipes a printed link on.
// The fancy reporter shows a line's time only on a terminal whose width it knows, yet formats the time
// for every line, and the first time formatted loads ICU's locale data (about 10 ms of a `router check`
// in CI). Where no width is known the time is never shown, so it is not asked for.
export const log = createConsola({ fancy: true, ...(process.stdout.columns ? {} : { formatOptions: { date: false } }) });
