import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeConnectionsLostWith } from '../../../src/runtime/cluster/close-lost-connections.js';

/** A worker's ChildProcess as the primary sees it: send() and the internal events Node's cluster uses. */
class FakeWorkerProcess extends EventEmitter {
  connected = true;
  readonly sent: Array<{ message: unknown; handle: unknown }> = [];
  send(message: unknown, handle?: unknown): boolean {
    this.sent.push({ message, handle });
    return true;
  }
  /** What Node's cluster module does to pass a connection: its internal `newconn` message, the handle with it. */
  passConnection(seq: number): { closed: number; close(): void } {
    const connection = { closed: 0, close: () => void (connection.closed += 1) };
    this.send({ cmd: 'NODE_CLUSTER', act: 'newconn', key: '127.0.0.1:0:4:-1:0', seq }, connection);
    return connection;
  }
  /** The worker's answer that it took (or turned away) connection `seq`. */
  answer(seq: number): void {
    this.emit('internalMessage', { cmd: 'NODE_CLUSTER', ack: seq, accepted: true, seq: 1000 + seq });
  }
  die(channelEndRead = true): void {
    this.emit('exit', null, 'SIGKILL');
    if (channelEndRead) this.connected = false;
  }
}

describe('connections passed to a worker that died before taking them', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('are closed once the worker has exited; those it answered for are left to their new owner', async () => {
    const worker = new FakeWorkerProcess();
    closeConnectionsLostWith(worker);
    const answered = worker.passConnection(1);
    const lost = worker.passConnection(2);
    worker.answer(1);
    expect(worker.sent.map((sent) => sent.handle)).toEqual([answered, lost]);

    worker.die();
    expect(lost.closed).toBe(0);
    await vi.advanceTimersByTimeAsync(50);
    expect(lost.closed).toBe(1);
    expect(answered.closed).toBe(0);
  });

  it('wait for the dead worker\'s last messages to be read: an answer still in the pipe at its exit counts', async () => {
    const worker = new FakeWorkerProcess();
    closeConnectionsLostWith(worker);
    const connection = worker.passConnection(7);
    worker.die(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(connection.closed).toBe(0);
    worker.answer(7);
    worker.connected = false;
    await vi.advanceTimersByTimeAsync(100);
    expect(connection.closed).toBe(0);
  });

  it('are closed after a bound even if the channel never reports its end', async () => {
    const worker = new FakeWorkerProcess();
    closeConnectionsLostWith(worker);
    const connection = worker.passConnection(3);
    worker.die(false);
    await vi.advanceTimersByTimeAsync(900);
    expect(connection.closed).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(connection.closed).toBe(1);
  });

  it('leave every other message alone, handle or not, and close nothing while the worker lives', async () => {
    const worker = new FakeWorkerProcess();
    closeConnectionsLostWith(worker);
    const handle = { close: vi.fn() };
    worker.send({ router: 'drain' });
    worker.send({ cmd: 'NODE_CLUSTER', act: 'disconnect', seq: 4 });
    worker.send({ cmd: 'NODE_CLUSTER', errno: null, key: 'k', ack: 0, seq: 5 }, handle);
    const connection = worker.passConnection(6);
    await vi.advanceTimersByTimeAsync(5000);
    expect(connection.closed).toBe(0);
    expect(worker.sent).toHaveLength(4);

    worker.die();
    await vi.advanceTimersByTimeAsync(50);
    expect(handle.close).not.toHaveBeenCalled();
    expect(connection.closed).toBe(1);
  });

  it('close exactly the connections never answered for, whatever the order of passes and answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 60 }), async (answeredFlags, order) => {
        const worker = new FakeWorkerProcess();
        closeConnectionsLostWith(worker);
        const connections = answeredFlags.map((_, seq) => worker.passConnection(seq));
        const toAnswer = answeredFlags.flatMap((answered, seq) => (answered ? [seq] : []));
        // Answers arrive in any order, some twice (a duplicate answer changes nothing).
        for (const pick of order) if (toAnswer.length > 0) worker.answer(toAnswer[pick % toAnswer.length]!);
        for (const seq of toAnswer) worker.answer(seq);
        worker.die();
        await vi.advanceTimersByTimeAsync(50);
        expect(connections.map((connection) => connection.closed)).toEqual(answeredFlags.map((answered) => (answered ? 0 : 1)));
      }),
      { numRuns: 100 },
    );
  });
});
