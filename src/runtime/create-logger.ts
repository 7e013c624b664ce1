/**
 * The one runtime logger (consola), in the format the operator asked for: JSON lines for production
 * (one object per line on stderr: time, level, tag, msg and the line's fields), or consola's pretty
 * output for a terminal. `auto` picks pretty when stderr is a terminal. Log lines never carry prompts,
 * keys, cookies or provider bodies: callers pass messages and fields, never requests or responses.
 */
import { formatWithOptions } from 'node:util';
import { createConsola, type ConsolaInstance, type ConsolaReporter, type LogObject } from 'consola';
import type { LogFormat, LogLevel } from '../config/types.js';

const LEVELS: Readonly<Record<LogLevel, number>> = { silent: -999, error: 0, warn: 1, info: 3, debug: 4 };

export function createLogger(options: { level: LogLevel; format: LogFormat; isTerminal: boolean; write?: (line: string) => void }): ConsolaInstance {
  const pretty = options.format === 'pretty' || (options.format === 'auto' && options.isTerminal);
  const level = LEVELS[options.level];
  if (pretty) return createConsola({ level, fancy: true }).withTag('router');
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  return createConsola({ level, reporters: [jsonLines(write)] }).withTag('router');
}

/** consola's types, as operators filter on them. */
function levelName(type: LogObject['type']): string {
  if (type === 'fatal' || type === 'error') return 'error';
  if (type === 'warn') return 'warn';
  if (type === 'debug' || type === 'trace' || type === 'verbose') return 'debug';
  return 'info';
}

/** A trailing plain object is the line's fields; everything before it is the message. */
function jsonLines(write: (line: string) => void): ConsolaReporter {
  return {
    log(entry: LogObject) {
      const args = [...entry.args];
      const last = args.at(-1);
      const fields = isPlainObject(last) ? (args.pop() as Record<string, unknown>) : {};
      const line = {
        time: entry.date.toISOString(),
        level: levelName(entry.type),
        ...(entry.tag ? { tag: entry.tag } : {}),
        msg: formatWithOptions({ colors: false, breakLength: Infinity }, ...args),
        ...fields,
      };
      write(`${JSON.stringify(line)}\n`);
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
