import { describe, expect, it } from 'vitest';
import type { RouteProfileConfig } from '../../../src/config/types.js';
import { MeasuredOrder } from '../../../src/routing/measured-order.js';
import { RouteMeasurements, STALE_AFTER_MS } from '../../../src/routing/route-measurements.js';

const target = (provider: string) => ({ provider, model: 'm', weight: 1 });
const ROUTE: RouteProfileConfig = { id: 'r', family: 'f', description: '', quotaWeight: 1, retryBudget: 2, order: 'measured', tiers: [[target('a'), target('b'), target('c')]] };

describe('measured ranking explores a candidate whose figures went stale', () => {
  function setUp() {
    let now = 0;
    const measurements = new RouteMeasurements({ now: () => now });
    const order = new MeasuredOrder(measurements);
    const first = () => order.rank(ROUTE, ROUTE.tiers.flat())[0]!.provider;
    // a is fast; b was slow once; c slower still: b and c then get no traffic.
    measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 50 });
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 900 });
    measurements.record({ provider: 'c', model: 'm', ok: true, ttfbMs: 2000 });
    return { measurements, first, advance: (ms: number) => void (now += ms) };
  }

  it('keeps the leader while the others are fresh, and while a keeps serving', () => {
    const { measurements, first, advance } = setUp();
    for (let i = 0; i < 10; i++) {
      advance(STALE_AFTER_MS / 10);
      measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 50 });
      expect(first()).toBe('a');
    }
    advance(1);
    expect(first()).toBe('b');
  });

  it('probes each stale candidate once per stale spell, never twice for racing requests, and the leader stays', () => {
    const { measurements, first, advance } = setUp();
    advance(STALE_AFTER_MS + 1);
    measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 50 });
    // b, then c: one probe each (the probes have not answered yet), then a again.
    expect([first(), first(), first(), first()]).toEqual(['b', 'c', 'a', 'a']);
    // b answered its probe, now fast: it is measured afresh and takes the lead on its merits.
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 10 });
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 10 });
    measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 10 });
    expect(first()).toBe('b');
  });

  it('a probe that brought no figure is retried only after another stale spell', () => {
    const { measurements, first, advance } = setUp();
    advance(STALE_AFTER_MS + 1);
    measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 50 });
    measurements.record({ provider: 'c', model: 'm', ok: true, ttfbMs: 2000 });
    expect(first()).toBe('b');
    expect(first()).toBe('a');
    advance(STALE_AFTER_MS / 2);
    expect(first()).toBe('a');
    advance(STALE_AFTER_MS / 2 + 1);
    expect(first()).toBe('b');
  });
});
