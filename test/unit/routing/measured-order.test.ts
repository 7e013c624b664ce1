import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
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

  it('holds the leader whatever order the candidates arrive in (a tier is shuffled for each request)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), (flips) => {
        const measurements = new RouteMeasurements(clock());
        const order = new MeasuredOrder(measurements);
        const shuffled = (flip: boolean) => (flip ? [target('b'), target('a')] : [target('a'), target('b')]);
        measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 100 });
        measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 300 });
        expect(order.rank(ROUTE, shuffled(flips[0]!))[0]!.provider).toBe('a');
        // a slows to behind b, but within 20% of it (100 moved a quarter of the way to 1020: 330 against
        // 300): a led, so a stays first in every order.
        measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 1020 });
        expect(measurements.figures('a', 'm')!.ttfbMs).toBe(330);
        for (const flip of flips) expect(order.rank(ROUTE, shuffled(flip))[0]!.provider).toBe('a');
      }),
    );
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

  it('cluster workers share the hysteresis too: a worker that led another candidate before adopts the leader the others turned to', () => {
    vi.useFakeTimers();
    try {
      const time = clock();
      const primary = serveMeasurements(time);
      const workers = [0, 1].map(() => {
        const listeners: Array<(message: unknown) => void> = [];
        const measurements = new RouteMeasurements(time);
        const channel = {
          send: (message: ClusterMessage) => void primary(message, (answer) => listeners.forEach((listener) => listener(answer))),
          onMessage: (listener: (message: unknown) => void) => (listeners.push(listener), () => undefined),
        };
        return { measurements, order: new MeasuredOrder(measurements), stop: shareMeasurements(measurements, channel, 10) };
      });
      const [busy, idle] = workers as [(typeof workers)[0], (typeof workers)[0]];
      const exchange = () => vi.advanceTimersByTime(30);
      busy.measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 50 });
      busy.measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 200 });
      exchange();
      // Both rank a first; the idle worker now holds a as its leader.
      expect([first(busy.order), first(idle.order)]).toEqual(['a', 'a']);
      exchange();
      // a slows down on the busy worker's traffic: it turns to b, which is more than 20% better by then.
      time.advance(60_000);
      busy.measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 1000 });
      expect(first(busy.order)).toBe('b');
      exchange();
      // b slows down too, to within 20% of a: the busy worker keeps b (hysteresis).
      time.advance(60_000);
      busy.measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 733 });
      expect(first(busy.order)).toBe('b');
      exchange();
      // Same figures on both; per-worker hysteresis would keep a on the idle worker (it led there last).
      expect(idle.measurements.snapshot()).toEqual(busy.measurements.snapshot());
      expect(first(idle.order)).toBe('b');
      workers.forEach((worker) => worker.stop());
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes a change of leader only from the leader the shared state still holds: the first to turn wins', () => {
    const shared = new RouteMeasurements(clock());
    shared.applyLeaderChange({ ranking: 'r', from: null, to: 'a' });
    shared.applyLeaderChange({ ranking: 'r', from: null, to: 'b' });
    expect(shared.leader('r')).toBe('a');
    shared.applyLeaderChange({ ranking: 'r', from: 'a', to: 'c' });
    shared.applyLeaderChange({ ranking: 'r', from: 'a', to: 'b' });
    expect(shared.leader('r')).toBe('c');
    for (let i = 0; i < 5000; i++) shared.applyLeaderChange({ ranking: `r${i}`, from: null, to: 'a' });
    expect(shared.leaders().length).toBeLessThanOrEqual(1024);
  });

  it('an answer to a message sent before a worker changed its leader does not undo the change, however late it comes', () => {
    vi.useFakeTimers();
    try {
      const time = clock();
      const primary = serveMeasurements(time);
      const listeners: Array<(message: unknown) => void> = [];
      const inFlight: ClusterMessage[] = [];
      const measurements = new RouteMeasurements(time);
      const channel = { send: (message: ClusterMessage) => void inFlight.push(message), onMessage: (listener: (message: unknown) => void) => (listeners.push(listener), () => undefined) };
      const stop = shareMeasurements(measurements, channel, 10);
      const deliver = (count = inFlight.length) => inFlight.splice(0, count).forEach((message) => primary(message, (answer) => listeners.forEach((listener) => listener(answer))));
      measurements.lead('r', 'a');
      measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 10 });
      vi.advanceTimersByTime(10);
      // Decided while the message above is on its way; the primary's answer to it still says a.
      measurements.lead('r', 'b');
      measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 20 });
      deliver(1);
      expect(measurements.leader('r')).toBe('b');
      expect(measurements.figures('b', 'm')).toMatchObject({ ttfbMs: 20 });
      // The change is sent, and the answer to the first message comes only after that.
      measurements.lead('r', 'a');
      vi.advanceTimersByTime(10);
      measurements.lead('r', 'b');
      vi.advanceTimersByTime(10);
      deliver(1);
      expect(measurements.leader('r')).toBe('b');
      // Once every message is answered, the shared state holds it all, each sample once.
      vi.advanceTimersByTime(10);
      deliver();
      expect(measurements.leader('r')).toBe('b');
      expect(measurements.figures('b', 'm')?.samples).toBe(1);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

