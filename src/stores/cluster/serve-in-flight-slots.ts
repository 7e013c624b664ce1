/**
 * The primary's side of the in-flight caps: one count per account for every worker (in-flight-counts.ts),
 * and, per worker, the slots it holds, so that a worker that exits (crashed, killed, replaced) has its
 * slots given back at once instead of shrinking its accounts' shares for good. Listens on the cluster
 * itself rather than through the primary's message handlers, because it needs to know which worker
 * asked and when a worker has gone.
 */
import { InFlightCounts } from '../memory/in-flight-counts.js';
import { isClusterMessage, type ClusterMessage, type SlotAnswer, type SlotQuestion } from './cluster-channel.js';

/** The part of a node:cluster Worker this needs. */
export interface SlotHolder {
  id: number;
  isConnected(): boolean;
  send(message: ClusterMessage, handle?: undefined, callback?: (error: Error | null) => void): boolean;
}

/** The part of node:cluster this needs (the primary's `cluster` object). */
export interface ClusterEvents {
  on(event: 'message', listener: (worker: SlotHolder, message: unknown) => void): unknown;
  on(event: 'exit', listener: (worker: SlotHolder) => void): unknown;
}

export interface InFlightSlots {
  /** Slots held now, per account (for tests and logs). */
  inFlight(accountId: string): number;
}

export function serveInFlightSlots(cluster: ClusterEvents): InFlightSlots {
  const counts = new InFlightCounts();
  /** Per worker id: the account of each slot it holds, by the id it asked with. */
  const held = new Map<number, Map<number, string>>();

  const decide = (slots: Map<number, string>, question: SlotQuestion): SlotAnswer => {
    const { id, accountId, limit } = question;
    if (!Number.isInteger(id) || typeof accountId !== 'string' || !Number.isInteger(limit) || limit < 0 || slots.has(id)) return { id };
    const { allowed, inFlight } = counts.tryTake(accountId, limit);
    if (allowed) slots.set(id, accountId);
    return { id, allowed, inFlight };
  };

  cluster.on('message', (worker, message) => {
    if (!isClusterMessage(message, 'slots')) return;
    let slots = held.get(worker.id);
    if (!slots) held.set(worker.id, (slots = new Map()));
    // Give-backs first: each was sent after the question it answers (IPC keeps a worker's order), and
    // a slot freed during the turn in which another was asked for is free for it.
    for (const id of Array.isArray(message.give) ? message.give : []) {
      const accountId = slots.get(id);
      if (accountId === undefined) continue;
      slots.delete(id);
      counts.give(accountId);
    }
    if (!Array.isArray(message.take) || message.take.length === 0) return;
    const answers = message.take.map((question) => decide(slots, question));
    if (worker.isConnected()) worker.send({ router: 'slots-answer', answers }, undefined, () => undefined);
  });

  cluster.on('exit', (worker) => {
    const slots = held.get(worker.id);
    held.delete(worker.id);
    for (const accountId of slots?.values() ?? []) counts.give(accountId);
  });

  return { inFlight: (accountId) => counts.inFlight(accountId) };
}
