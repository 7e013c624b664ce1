/**
 * How commands talk to the operator: with --json exactly one JSON document on stdout, otherwise human
 * lines through consola. Operational failures are CliFailure (exit 1, one-line reason); bad arguments
 * are commander's usage errors (exit 2).
 */
import { consola } from 'consola';

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

export const log = consola;
