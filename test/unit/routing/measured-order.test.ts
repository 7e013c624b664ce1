import { describe, expect, it } from 'vitest';
import type { RouteProfileConfig } from '../../../src/config/types.js';
import { MeasuredOrder } from '../../../src/routing/measured-order.js';
import { RouteMeasurements } from '../../../src/routing/route-measurements.js';
import { serveMeasurements, shareMeasurements } from '../../../src/stores/cluster/share-measurements.js';
import type { ClusterMessage } from '../../../src/stores/cluster/cluster-channel.js';

const clock = () => {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
};
const target = (provider: string) => ({ provider, model: 'm', weight: 1 });
const ROUTE: RouteProfileConfig = { id: 'r', family: 'f', description: '', quotaWeight: 1, retryBudget: 2, order: 'measured', tiers: [[target('a'), target('b')]] };
const first = (order: MeasuredOrder) => order.rank(ROUTE, ROUTE.tiers.flat())[0]!.provider;

describe('measured ranking', () => {
  it('tries unmeasured candidates first, then the fastest, and keeps a leader until another is more than 20% better', () => {
    const time = clock();
    const measurements = new RouteMeasurements(time);
    const order = new MeasuredOrder(measurements);
    expect(first(order)).toBe('a');
    measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 100 });
    expect(first(order)).toBe('b');
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 90 });
    // b led last (tried while unmeasured) and a is not more than 20% faster: b stays first (no flapping).
    expect(first(order)).toBe('b');
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 300 });
    time.advance(60_000);
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 300 });
    expect(first(order)).toBe('a');
    // One fast sample moves b's decayed figure only part of the way: a keeps the lead.
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 95 });
    expect(first(order)).toBe('a');
  });

  it('ranks a candidate that only failed last, and keeps memory bounded', () => {
    const measurements = new RouteMeasurements(clock());
    measurements.record({ provider: 'a', model: 'm', ok: false });
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 5000 });
    expect(first(new MeasuredOrder(measurements))).toBe('b');
    for (let i = 0; i < 5000; i++) measurements.record({ provider: `p${i}`, model: 'm', ok: true, ttfbMs: 1 });
    expect(measurements.snapshot().length).toBeLessThanOrEqual(1024);
  });

  it('cluster workers share one set of figures through the primary', async () => {
    const primary = serveMeasurements(clock());
    const workers = [0, 1].map(() => {
      const listeners: Array<(message: unknown) => void> = [];
      const measurements = new RouteMeasurements(clock());
      const channel = {
        send: (message: ClusterMessage) => void primary(message, (answer) => listeners.forEach((listener) => listener(answer))),
        onMessage: (listener: (message: unknown) => void) => (listeners.push(listener), () => undefined),
      };
      const stop = shareMeasurements(measurements, channel, 10);
      return { measurements, stop };
    });
    workers[0]!.measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 42, tokensPerSecond: 80 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(workers[1]!.measurements.figures('a', 'm')).toMatchObject({ ttfbMs: 42, tokensPerSecond: 80, errorRate: 0, samples: 1 });
    workers.forEach((worker) => worker.stop());
  });
});
