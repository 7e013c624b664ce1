/**
 * The one gap in Node's round-robin scheduling, which cluster mode keeps for its even spread (each
 * connection goes to the next worker; with SCHED_NONE the kernel put 80% of a keep-alive pool on one of
 * two workers in most trials, docs/operations.md). The primary accepts each connection, passes it to a
 * worker over IPC and keeps its own copy open until the worker answers that it took it. A worker that
 * dies before answering never does, the primary's copy stays open, and the client waits, answered by
 * nobody, until its own timeout. This notes each connection passed to the worker and, once the worker
 * has exited and everything it sent has been read, closes those it never answered for: the client sees
 * a reset at once, as it does for a connection the worker had taken.
 *
 * It relies on Node's internal cluster protocol (a `{ cmd: 'NODE_CLUSTER', act: 'newconn', seq }`
 * message carrying the connection, answered by one with `ack: seq` on the worker's 'internalMessage'),
 * unchanged since Node 0.12; test/e2e/cluster-worker-death.test.ts fails at once if that ever changes.
 */
/** How often, and how long at most, to wait for the dead worker's last messages to be read. */
const READ_POLL_MS = 10;
const READ_BOUND_MS = 1000;

interface Closable {
  close(): void;
}

/** What this uses of a worker's ChildProcess (`worker.process` in the primary). */
export interface WorkerProcess {
  send(message: unknown, handle?: unknown, ...rest: unknown[]): boolean;
  on(event: 'internalMessage', listener: (message: unknown) => void): unknown;
  once(event: 'exit', listener: () => void): unknown;
  readonly connected: boolean;
}

export function closeConnectionsLostWith(worker: WorkerProcess): void {
  const unanswered = new Map<number, Closable>();
  const send = worker.send.bind(worker);
  worker.send = (message, handle, ...rest) => {
    if (isNewConnection(message) && isClosable(handle)) unanswered.set(message.seq, handle);
    return send(message, handle, ...rest);
  };
  worker.on('internalMessage', (message) => {
    if (isClusterMessage(message) && typeof message.ack === 'number') unanswered.delete(message.ack);
  });
  worker.once('exit', () => {
    // An answer still in the pipe when the exit is seen would be read after it: close only once the
    // channel has reached its end (`connected` turns false there), or after the bound.
    const deadline = Date.now() + READ_BOUND_MS;
    const closeWhenRead = () => {
      if (worker.connected && Date.now() < deadline) return void setTimeout(closeWhenRead, READ_POLL_MS);
      // Messages read with the end are emitted on the next tick: let them land first.
      setImmediate(() => {
        for (const connection of unanswered.values()) connection.close();
        unanswered.clear();
      });
    };
    closeWhenRead();
  });
}

function isClusterMessage(message: unknown): message is { cmd: 'NODE_CLUSTER'; act?: unknown; seq?: unknown; ack?: unknown } {
  return typeof message === 'object' && message !== null && (message as { cmd?: unknown }).cmd === 'NODE_CLUSTER';
}

function isNewConnection(message: unknown): message is { cmd: 'NODE_CLUSTER'; act: 'newconn'; seq: number } {
  return isClusterMessage(message) && message.act === 'newconn' && typeof message.seq === 'number';
}

function isClosable(handle: unknown): handle is Closable {
  return typeof handle === 'object' && handle !== null && typeof (handle as { close?: unknown }).close === 'function';
}
