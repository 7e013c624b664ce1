/**
 * The message channel between a cluster worker and its primary (Node's IPC: `process.send` in the
 * worker, `worker.send` in the primary). Each message names its kind under `router`, so messages of
 * Node's own or of a library on the same channel pass by untouched. Exchanges here are
 * request/answer pairs matched by id.
 */
import type { RateDecision } from '../rate-limiter.js';
import type { CredentialCircuitChange } from '../../routing/credential-health.js';
import type { MeasurementsContribution, SharedMeasurements } from '../measurements-exchange.js';

/** One end of the channel, as the worker (or a test) sees it. */
export interface ClusterChannel {
  send(message: ClusterMessage): void;
  /** Returns a function that stops listening. */
  onMessage(listener: (message: unknown) => void): () => void;
}

/** One of the primary's handlers: returns false for a message that is not its kind. */
export type PrimaryHandler = (message: unknown, reply: (answer: ClusterMessage) => void) => boolean;

/** One per-minute decision a worker asks for. */
export interface RateQuestion {
  id: number;
  op: 'admit' | 'peek';
  accountId: string;
  limit: number;
  nowMs: number;
  /** Absent: the per-minute window. */
  windowMs?: number;
}

/** The primary's answer to one question; no decision means it could not decide (the worker answers 503). */
export interface RateAnswer {
  id: number;
  decision?: RateDecision;
}

/** A worker asks for one in-flight slot of an account (stores/cluster/serve-in-flight-slots.ts). */
export interface SlotQuestion {
  id: number;
  accountId: string;
  limit: number;
}

/** The primary's answer; no `allowed` means it could not decide (the worker answers 503). */
export interface SlotAnswer {
  id: number;
  allowed?: boolean;
  inFlight?: number;
}

export type ClusterMessage =
  // Questions and answers travel in batches: one IPC message per event-loop turn, not per request.
  | { router: 'rate'; questions: RateQuestion[] }
  | { router: 'rate-answer'; answers: RateAnswer[] }
  // Slots to take (answered) and slots given back (by the ids they were taken with; not answered).
  | { router: 'slots'; take: SlotQuestion[]; give: number[] }
  | { router: 'slots-answer'; answers: SlotAnswer[] }
  | { router: 'metrics'; id: number }
  | { router: 'metrics-answer'; id: number; text: string | null }
  | { router: 'metrics-snapshot'; id: number }
  | { router: 'metrics-snapshot-answer'; id: number; snapshot: unknown[] | null }
  // A worker's measured-routing samples and changes of leader since its last message; the primary
  // answers with everyone's figures and leaders.
  | ({ router: 'measurements' } & MeasurementsContribution)
  | ({ router: 'measurements-figures' } & SharedMeasurements)
  // A key's circuit changed in one worker (`from`: its pid); the primary relays it to every worker.
  | { router: 'credential-circuit'; from: number; change: CredentialCircuitChange }
  // From a worker's event loop, for the primary's watchdog (runtime/cluster/worker-watchdog.ts); not answered.
  | { router: 'heartbeat' }
  | { router: 'drain' }
  | { router: 'cut' };

export type ClusterMessageOf<K extends ClusterMessage['router']> = Extract<ClusterMessage, { router: K }>;

/** Narrows an IPC message to one of the router's kinds (anything else, including Node's own, is not). */
export function isClusterMessage<K extends ClusterMessage['router']>(message: unknown, kind: K): message is ClusterMessageOf<K> {
  return typeof message === 'object' && message !== null && (message as { router?: unknown }).router === kind;
}

/** The worker's end in a real cluster: the process's own IPC channel to the primary. */
export function processChannel(target: NodeJS.Process = process): ClusterChannel {
  return {
    send(message) {
      // Once the primary is gone the channel is closed: the caller's own timeout answers then.
      if (target.connected) target.send?.(message);
    },
    onMessage(listener) {
      target.on('message', listener);
      return () => void target.off('message', listener);
    },
  };
}
