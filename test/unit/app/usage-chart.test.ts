/** The usage page's per-day charts: every value drawn once, stacked in proportion, the biggest series named. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addSums, emptySums } from '../../../src/stores/ledger-rollup.js';
import type { UsageCell } from '../../../src/stores/ledger-store.js';
import { MAX_SERIES, axisSteps, metricOf, shortDay, usageChart } from '../../../src/app/usage-chart.js';
import { withUsd, type DailyUsage } from '../../../src/usage/usage-report.js';

const DAYS = Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2026, 9, 27 + i)).toISOString().slice(0, 10));

function usageOf(cells: { day: number; group: string | null; requests: number; tokens: number }[]): DailyUsage {
  const full: UsageCell[] = cells.map((cell) => ({ ...emptySums(cell.group), range: DAYS[cell.day]!, requests: cell.requests, promptTokens: cell.tokens, completionTokens: 0 }));
  const byValue = new Map<string | null, ReturnType<typeof emptySums>>();
  for (const cell of full) {
    if (!byValue.has(cell.group)) byValue.set(cell.group, emptySums(cell.group));
    addSums(byValue.get(cell.group)!, cell);
  }
  return {
    accountId: 'acct_1',
    from: DAYS[0]!,
    to: DAYS[29]!,
    tz: 'UTC',
    by: 'route',
    interval: { from: `${DAYS[0]}T00:00:00.000Z`, to: '2026-11-26T00:00:00.000Z' },
    days: DAYS,
    cells: full,
    rows: [...byValue.values()].map(withUsd),
    dayTotals: [],
    totals: withUsd(emptySums()),
  };
}

describe('usage charts', () => {
  it('draws each day’s value as stacked segments whose heights add up to it, under a round axis', () => {
    const cell = fc.record({ day: fc.integer({ min: 0, max: 29 }), group: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', null), requests: fc.integer({ min: 0, max: 100_000 }), tokens: fc.integer({ min: 0, max: 10 ** 9 }) });
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 60 }), fc.constantFrom('requests' as const, 'tokens' as const), (cells, metric) => {
        const usage = usageOf(cells);
        const chart = usageChart(usage, metric, (group) => group ?? 'none');
        const total = usage.cells.reduce((sum, entry) => sum + metricOf(entry, metric), 0);
        expect(chart.empty).toBe(total === 0);
        expect(chart.series.reduce((sum, entry) => sum + entry.total, 0)).toBe(total);
        expect(chart.series.length).toBeLessThanOrEqual(MAX_SERIES + 1);
        const axisTop = Number(chart.gridlines.at(-1)!.y);
        const pixelsPerUnit = (Number(chart.gridlines[0]!.y) - axisTop) / (axisSteps(Math.max(0, ...DAYS.map((day) => usage.cells.filter((c) => c.range === day).reduce((sum, c) => sum + metricOf(c, metric), 0)))).at(-1)!);
        const drawn = chart.segments.reduce((sum, segment) => sum + segment.height, 0);
        expect(Math.abs(drawn / pixelsPerUnit - total)).toBeLessThanOrEqual(Math.max(1, total * 1e-3) + chart.segments.length * 0.01 / pixelsPerUnit);
        for (const segment of chart.segments) expect(segment.y).toBeGreaterThanOrEqual(axisTop - 0.01);
      }),
      { numRuns: 200 },
    );
  });

  it('names the five biggest series and stacks the rest as one, labelling every seventh day back from today', () => {
    const cells = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((group, i) => ({ day: 29, group, requests: 70 - i * 10, tokens: 0 }));
    const chart = usageChart(usageOf(cells), 'requests', (group) => `route ${group}`);
    expect(chart.series.map((entry) => [entry.label, entry.total])).toEqual([
      ['route a', 70], ['route b', 60], ['route c', 50], ['route d', 40], ['route e', 30], ['2 more', 30],
    ]);
    expect(chart.dayLabels.map((label) => label.label)).toEqual(['28 Oct', '4 Nov', '11 Nov', '18 Nov', '25 Nov']);
    expect(chart.summary).toBe('Requests per day from 2026-10-27 to 2026-11-25 (UTC): 280 in all, route a 70, route b 60, route c 50, route d 40, route e 30, 2 more 30.');
    expect(chart.segments.every((segment) => segment.title.startsWith('2026-11-25 · '))).toBe(true);
  });

  it('picks axis steps of 1, 2 or 5 times a power of ten', () => {
    expect(axisSteps(0)).toEqual([0, 1]);
    expect(axisSteps(3)).toEqual([0, 1, 2, 3]);
    expect(axisSteps(7)).toEqual([0, 2, 4, 6, 8]);
    expect(axisSteps(1234)).toEqual([0, 500, 1000, 1500]);
    fc.assert(fc.property(fc.integer({ min: 1, max: 10 ** 12 }), (max) => {
      const steps = axisSteps(max);
      expect(steps.at(-1)!).toBeGreaterThanOrEqual(max);
      expect(steps.length).toBeLessThanOrEqual(6);
      expect(String(steps[1]!)).toMatch(/^[125]0*$/);
    }));
    expect(shortDay('2026-11-04')).toBe('4 Nov');
  });
});
