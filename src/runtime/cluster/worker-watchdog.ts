/**
 * Cluster mode's watchdog (`listen.watchdogTimeoutMs`): a worker whose event loop stops turning (an
 * endless loop, a synchronous wait, a stopped process) still holds its listening share and its
 * connections, and nothing else would ever end it. Each worker sends a heartbeat over IPC from a timer
 * on its own event loop; the primary kills (SIGKILL) a serving worker it has not heard from for the
 * timeout, and its exit is then handled like any crash: a replacement after the back-off, the
 * connections it never took closed by close-lost-connections.ts, those it took reset by the kernel.
 *
 * Heartbeats come from the loop and from nowhere else, so a worker busy with slow I/O (a long upstream
 * answer, a slow database) keeps beating; only a loop blocked for the whole timeout misses them. A
 * primary that was itself stalled cannot tell a silent worker from heartbeats still unread in the
 * pipe, so after such a stall it gives every worker a fresh timeout instead of judging.
 */
import type { ClusterChannel } from '../../stores/cluster/cluster-channel.js';

/** Heartbeats per timeout: a worker is judged hung only after missing this many in a row. */
const BEATS_PER_TIMEOUT = 6;
/** Checks per timeout: a hung worker is killed within the timeout and a tenth of it. */
const CHECKS_PER_TIMEOUT = 10;

export function heartbeatIntervalMs(timeoutMs: number): number {
  return Math.max(1, Math.floor(timeoutMs / BEATS_PER_TIMEOUT));
}

export function watchdogCheckIntervalMs(timeoutMs: number): number {
  return Math.max(1, Math.floor(timeoutMs / CHECKS_PER_TIMEOUT));
}

/** The worker's side: a heartbeat from its event loop every interval. Returns a function that stops it. */
export function sendHeartbeats(channel: ClusterChannel, timeoutMs: number): () => void {
  const timer = setInterval(() => channel.send({ router: 'heartbeat' }), heartbeatIntervalMs(timeoutMs));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The primary's bookkeeping, without timers or processes: when each watched worker was last heard
 * from, and which are overdue at a check.
 */
export class HeartbeatWatch {
  readonly #lastHeard = new Map<number, number>();
  #lastCheckAt: number | undefined;

  constructor(private readonly timeoutMs: number) {}

  /** Starts watching a worker (once it is serving): its timeout runs from now. */
  watch(workerId: number, now: number): void {
    this.#lastHeard.set(workerId, now);
  }

  /** A heartbeat from a worker; one not watched (still starting, or already judged) is ignored. */
  heard(workerId: number, now: number): void {
    if (this.#lastHeard.has(workerId)) this.#lastHeard.set(workerId, now);
  }

  forget(workerId: number): void {
    this.#lastHeard.delete(workerId);
  }

  /**
   * The workers silent for longer than the timeout, no longer watched once returned. A check that
   * comes more than half a timeout after the previous one means the primary's own loop stalled, with
   * heartbeats perhaps still unread: every worker then gets a fresh timeout and none is judged.
   */
  overdue(now: number): number[] {
    const previous = this.#lastCheckAt;
    this.#lastCheckAt = now;
    if (previous !== undefined && now - previous > this.timeoutMs / 2) {
      for (const workerId of this.#lastHeard.keys()) this.#lastHeard.set(workerId, now);
      return [];
    }
    const silent = [...this.#lastHeard].filter(([, heardAt]) => now - heardAt > this.timeoutMs).map(([workerId]) => workerId);
    for (const workerId of silent) this.#lastHeard.delete(workerId);
    return silent;
  }
}
