import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { BASE_CONFIG_DIR, listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from '../config/config-variant.js';
import { HeartbeatWatch, heartbeatIntervalMs, sendHeartbeats, watchdogCheckIntervalMs } from '../../../src/runtime/cluster/worker-watchdog.js';
import type { ClusterMessage } from '../../../src/stores/cluster/cluster-channel.js';

const TIMEOUT = 3000;

/** Checks at the watchdog's own cadence from `from` to `to`, collecting every worker judged overdue. */
function checkEvery(watch: HeartbeatWatch, from: number, to: number): Array<{ at: number; workerId: number }> {
  const judged: Array<{ at: number; workerId: number }> = [];
  for (let at = from; at <= to; at += watchdogCheckIntervalMs(TIMEOUT)) for (const workerId of watch.overdue(at)) judged.push({ at, workerId });
  return judged;
}

describe('cluster watchdog: which workers are hung', () => {
  it('judges a worker silent for longer than the timeout, once, and leaves one that keeps beating', () => {
    const watch = new HeartbeatWatch(TIMEOUT);
    watch.watch(1, 0);
    watch.watch(2, 0);
    const judged: Array<{ at: number; workerId: number }> = [];
    // Worker 1 beats at the workers' cadence throughout; worker 2 beats until 1000 ms, then its loop stops.
    for (let at = 0; at <= 10_000; at += 100) {
      if (at % heartbeatIntervalMs(TIMEOUT) === 0) {
        watch.heard(1, at);
        if (at <= 1000) watch.heard(2, at);
      }
      if (at % watchdogCheckIntervalMs(TIMEOUT) === 0) for (const workerId of watch.overdue(at)) judged.push({ at, workerId });
    }
    expect(judged).toEqual([{ at: 4200, workerId: 2 }]);
  });

  it('gives every worker a fresh timeout after a check that came late (the primary itself stalled)', () => {
    const watch = new HeartbeatWatch(TIMEOUT);
    watch.watch(1, 0);
    expect(watch.overdue(0)).toEqual([]);
    // The primary's loop was stuck for 5 s: the worker's heartbeats may be waiting unread in the pipe.
    expect(watch.overdue(5000)).toEqual([]);
    // Still silent a whole timeout after the stall: now it is judged.
    expect(checkEvery(watch, 5300, 9000)).toEqual([{ at: 8300, workerId: 1 }]);
  });

  it('ignores heartbeats of a worker not watched (still starting, or already judged) and forgets one that exited', () => {
    const watch = new HeartbeatWatch(TIMEOUT);
    watch.heard(7, 0);
    expect(checkEvery(watch, 0, 10_000)).toEqual([]);
    watch.watch(8, 0);
    watch.forget(8);
    expect(checkEvery(watch, 0, 10_000)).toEqual([]);
  });

  it('never judges a worker that beats at its cadence, however the checks fall (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 600_000 }), fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 200 }), (timeoutMs, gaps) => {
        const watch = new HeartbeatWatch(timeoutMs);
        watch.watch(1, 0);
        let now = 0;
        let nextBeat = heartbeatIntervalMs(timeoutMs);
        for (const gap of gaps) {
          // Checks at least as often as the primary's timer, at irregular moments between beats.
          now += Math.min(gap, watchdogCheckIntervalMs(timeoutMs));
          while (nextBeat <= now) {
            watch.heard(1, nextBeat);
            nextBeat += heartbeatIntervalMs(timeoutMs);
          }
          if (watch.overdue(now).length > 0) return false;
        }
        return true;
      }),
    );
  });
});

describe('cluster watchdog: the worker side', () => {
  it('sends a heartbeat message every sixth of the timeout until stopped', () => {
    vi.useFakeTimers();
    try {
      const sent: ClusterMessage[] = [];
      const stop = sendHeartbeats({ send: (message) => void sent.push(message), onMessage: () => () => undefined }, 3000);
      vi.advanceTimersByTime(2999);
      expect(sent).toEqual(Array.from({ length: 5 }, () => ({ router: 'heartbeat' })));
      stop();
      vi.advanceTimersByTime(10_000);
      expect(sent.length).toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('listen.watchdogTimeoutMs', () => {
  afterAll(removeConfigVariants);
  const withTimeout = (value: string) => writeConfigVariant({ 'server.yaml': replaceOnce('  port: 8787\n', `  port: 8787\n  watchdogTimeoutMs: ${value}\n`) });

  it('defaults to 3000 ms and accepts 0 (off) or 1000 to 600000', () => {
    expect(loadConfig(BASE_CONFIG_DIR, {}).server.listen.watchdogTimeoutMs).toBe(3000);
    expect(loadConfig(withTimeout('0'), {}).server.listen.watchdogTimeoutMs).toBe(0);
    expect(loadConfig(withTimeout('1500'), {}).server.listen.watchdogTimeoutMs).toBe(1500);
    for (const bad of ['500', '600001', '2.5', 'off']) {
      expect(listProblems(withTimeout(bad))).toEqual([expect.stringMatching(/listen\.watchdogTimeoutMs must be 0 \(off\), or a whole number of milliseconds from 1000 to 600000$/)]);
    }
  });
});
