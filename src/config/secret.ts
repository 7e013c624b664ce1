import { inspect } from 'node:util';

/**
 * A credential resolved from `${ENV}`. Printing, logging or JSON-serializing it shows `[redacted]`;
 * only `reveal()` hands out the value, so every use of a secret is greppable.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}
