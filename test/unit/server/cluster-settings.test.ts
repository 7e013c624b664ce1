import { describe, expect, it } from 'vitest';
import { RestartBackoff } from '../../../src/runtime/cluster/restart-backoff.js';
import { workerCount } from '../../../src/runtime/cluster/worker-count.js';

describe('listen.workers', () => {
  it('is the number given, or one per available core for auto', () => {
    expect(workerCount(3, () => 8)).toBe(3);
    expect(workerCount('auto', () => 8)).toBe(8);
    expect(workerCount('auto', () => 0)).toBe(1);
  });
});

describe('restart back-off of crashed workers', () => {
  it('doubles with each crash in a row up to its bound', () => {
    const backoff = new RestartBackoff({ baseMs: 100, maxMs: 1000, stableMs: 60_000 });
    expect(Array.from({ length: 7 }, () => backoff.next(50))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('starts over once a worker ran for stableMs before crashing', () => {
    const backoff = new RestartBackoff({ baseMs: 100, maxMs: 10_000, stableMs: 5000 });
    expect([backoff.next(10), backoff.next(10), backoff.next(10)]).toEqual([100, 200, 400]);
    expect(backoff.next(5000)).toBe(100);
    expect(backoff.next(10)).toBe(200);
  });
});
