/**
 * Ledger record ids that sort by the request's start: `use_` + the start in ms (9 base-36 digits) + a
 * per-writer random part + a counter. Inserts then land at the end of the primary-key index instead of
 * at random places in it (the writer's largest cost on SQLite), and "records started before T" is a
 * range of ids, so pruning and time-bounded scans need no index of their own.
 */
import { randomBytes } from 'node:crypto';

const PREFIX = 'use_';
const TIME_DIGITS = 9;

const timePart = (ms: number): string => Math.max(0, Math.floor(ms)).toString(36).padStart(TIME_DIGITS, '0');

/** A generator of ids for one writer: unique across writers (random part) and within it (counter). */
export function createLedgerRecordIds(): (startedAtMs: number) => string {
  const writer = randomBytes(5).toString('hex');
  let counter = 0;
  return (startedAtMs) => `${PREFIX}${timePart(startedAtMs)}${writer}${(counter++).toString(36)}`;
}

/** The smallest id a record started at or after `ms` can have: ids below it started earlier. */
export function ledgerRecordIdFloor(ms: number): string {
  return `${PREFIX}${timePart(ms)}`;
}
