import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { healthKind, providerBadge, statusBars, summarize } from '../../../src/app/status-chart.js';
import { HISTORY_MINUTES, StatusHistory } from '../../../src/app/status-history.js';
import { ProviderHealth } from '../../../src/routing/provider-health.js';
import { ManualClock } from '../../contracts/store-contract.js';

describe('status history', () => {
  it('keeps one sample per minute per provider for the last hour only', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 30));
    const health = new ProviderHealth({ failureThreshold: 2, cooldownMs: 30_000 }, clock);
    const history = new StatusHistory(health, ['openai', 'gemini'], clock);
    for (let minute = 0; minute < 150; minute++) {
      if (minute === 140) {
        health.recordFailure('openai');
        health.recordFailure('openai');
      }
      history.sample();
      history.sample();
      clock.advance(60_000);
    }
    const samples = history.history('openai');
    expect(samples).toHaveLength(HISTORY_MINUTES);
    expect(new Set(samples.map((sample) => sample.minute)).size).toBe(HISTORY_MINUTES);
    expect(samples.at(-1)!.minute - samples[0]!.minute).toBe((HISTORY_MINUTES - 1) * 60_000);
    expect(samples.filter((sample) => sample.state === 'open').length).toBeGreaterThan(0);
    expect(history.history('gemini').every((sample) => sample.state === 'closed')).toBe(true);
    expect(history.history('unknown')).toEqual([]);
  });

  it('draws 60 bars for the hour, marking minutes without data, a down circuit and a healthy one', () => {
    const now = Date.UTC(2026, 10, 21, 10, 30, 10);
    const minute = Math.floor(now / 60_000) * 60_000;
    const bars = statusBars(
      [
        { minute: minute - 60_000, state: 'open', successRate: 0 },
        { minute, state: 'closed', successRate: 1 },
        { minute: minute - 90 * 60_000, state: 'closed', successRate: 1 },
      ],
      now,
    );
    expect(bars).toHaveLength(60);
    expect(bars.at(-1)).toMatchObject({ kind: 'ok', title: '10:30 UTC: circuit closed, 100% success' });
    expect(bars.at(-2)).toMatchObject({ kind: 'bad', title: '10:29 UTC: circuit open, 0% success' });
    expect(summarize(bars)).toBe('1 healthy, 0 degraded, 1 down, 58 without data');
  });

  it('never calls a minute without traffic healthy, nor a failing closed circuit healthy', () => {
    const now = Date.UTC(2026, 10, 21, 10, 30, 10);
    const minute = Math.floor(now / 60_000) * 60_000;
    const bars = statusBars(
      [
        { minute: minute - 120_000, state: 'closed', successRate: null },
        { minute: minute - 60_000, state: 'closed', successRate: 0 },
        { minute, state: 'closed', successRate: 0.75 },
      ],
      now,
    );
    expect(bars.at(-3)).toMatchObject({ kind: 'idle', title: '10:28 UTC: circuit closed, no traffic' });
    expect(bars.at(-2)).toMatchObject({ kind: 'bad', title: '10:29 UTC: circuit closed, 0% success' });
    expect(bars.at(-1)).toMatchObject({ kind: 'mixed' });
    expect(summarize(bars)).toBe('0 healthy, 1 degraded, 1 down, 58 without data');
  });

  it('badges a provider by what its traffic shows: no data, failing, degraded, operational, down, recovering', () => {
    expect(providerBadge('closed', null)).toEqual({ label: 'no data', className: 'idle' });
    expect(providerBadge('closed', 0)).toEqual({ label: 'failing', className: 'open' });
    expect(providerBadge('closed', 0.8)).toEqual({ label: 'degraded', className: 'half_open' });
    expect(providerBadge('closed', 0.95)).toEqual({ label: 'operational', className: 'closed' });
    expect(providerBadge('open', 1)).toEqual({ label: 'down', className: 'open' });
    expect(providerBadge('half_open', null)).toEqual({ label: 'recovering', className: 'half_open' });
  });

  it('says "operational" only beside traffic that mostly succeeds, for any state and rate', () => {
    const state = fc.constantFrom('closed' as const, 'open' as const, 'half_open' as const);
    const rate = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null });
    fc.assert(
      fc.property(state, rate, (circuit, successRate) => {
        const badge = providerBadge(circuit, successRate);
        const healthy = circuit === 'closed' && successRate !== null && successRate >= 0.9;
        expect(badge.label === 'operational').toBe(healthy);
        expect(healthKind(circuit, successRate) === 'ok').toBe(healthy);
        if (successRate === null && circuit === 'closed') expect(badge.label).toBe('no data');
      }),
    );
  });
});
