/**
 * Per-day stacked bar charts of the usage page as server-side SVG (no script, so the strict CSP holds).
 * Pure: a DailyUsage in, the shapes to draw out. Bars are placed in percent of the chart's width and
 * text in pixels, so the chart fills any width (375 px phones too) without shrinking its labels.
 */
import type { UsageCell } from '../stores/ledger-store.js';
import type { DailyUsage } from '../usage/usage-report.js';

/** Values with their own colour; the rest are stacked as one "other" series. */
export const MAX_SERIES = 5;
const PLOT_TOP = 18;
const PLOT_HEIGHT = 170;
const LABEL_Y = PLOT_TOP + PLOT_HEIGHT + 18;
export const CHART_HEIGHT = LABEL_Y + 6;

export type ChartMetric = 'requests' | 'tokens';

export interface ChartSeries {
  /** CSS class `series-<index>`; MAX_SERIES is "other". */
  index: number;
  label: string;
  total: number;
  totalLabel: string;
}

export interface ChartSegment {
  x: string;
  width: string;
  y: number;
  height: number;
  series: number;
  title: string;
}

export interface UsageChart {
  metric: ChartMetric;
  height: number;
  empty: boolean;
  series: ChartSeries[];
  segments: ChartSegment[];
  gridlines: { y: number; label: string }[];
  /** Centred under their bars, 7 days apart (today's may reach a few pixels into the card's padding). */
  dayLabels: { x: string; label: string }[];
  /** What the chart shows, in words (its accessible name). */
  summary: string;
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en-US');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function metricOf(sums: Pick<UsageCell, 'requests' | 'promptTokens' | 'completionTokens'>, metric: ChartMetric): number {
  // Completion tokens include reasoning tokens and prompt tokens include cached ones, as providers count them.
  return metric === 'requests' ? sums.requests : sums.promptTokens + sums.completionTokens;
}

/** `2026-11-04` → `4 Nov`. */
export function shortDay(day: string): string {
  return `${Number(day.slice(8, 10))} ${MONTHS[Number(day.slice(5, 7)) - 1]}`;
}

/** A round axis top at or above `max` (1, 2 or 5 times a power of ten per step, four steps). */
export function axisSteps(max: number): number[] {
  if (max <= 0) return [0, 1];
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw) ?? 10 * power);
  const steps = Math.ceil(max / step);
  return Array.from({ length: steps + 1 }, (_, index) => index * step);
}

const percent = (value: number): string => `${Number(value.toFixed(3))}%`;

export function usageChart(usage: DailyUsage, metric: ChartMetric, labelOf: (group: string | null) => string): UsageChart {
  const unit = metric === 'requests' ? 'requests' : 'tokens';
  // The biggest values by this metric keep their own colour, in the same order on every day.
  const ranked = usage.rows
    .map((row) => ({ group: row.group, total: metricOf(row, metric) }))
    .filter((entry) => entry.total > 0)
    .sort((a, b) => b.total - a.total);
  const own = ranked.slice(0, MAX_SERIES);
  const seriesOf = new Map(own.map((entry, index) => [entry.group, index]));
  const series: ChartSeries[] = own.map((entry, index) => ({ index, label: labelOf(entry.group), total: entry.total, totalLabel: whole.format(entry.total) }));
  const otherTotal = ranked.slice(MAX_SERIES).reduce((sum, entry) => sum + entry.total, 0);
  if (otherTotal > 0) series.push({ index: MAX_SERIES, label: `${ranked.length - MAX_SERIES} more`, total: otherTotal, totalLabel: whole.format(otherTotal) });

  const perDay = new Map(usage.days.map((day) => [day, new Array<number>(MAX_SERIES + 1).fill(0)]));
  for (const cell of usage.cells) {
    const values = perDay.get(cell.range)!;
    const index = seriesOf.get(cell.group) ?? MAX_SERIES;
    values[index] = (values[index] ?? 0) + metricOf(cell, metric);
  }
  const dayTotals = usage.days.map((day) => perDay.get(day)!.reduce((sum, value) => sum + value, 0));
  const steps = axisSteps(Math.max(0, ...dayTotals));
  const top = steps[steps.length - 1]!;
  const yOf = (value: number) => Number((PLOT_TOP + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT).toFixed(2));

  const slot = 100 / usage.days.length;
  const segments: ChartSegment[] = [];
  usage.days.forEach((day, dayIndex) => {
    let base = 0;
    perDay.get(day)!.forEach((value, index) => {
      if (value === 0) return;
      const name = series.find((entry) => entry.index === index)?.label ?? '';
      segments.push({
        x: percent(dayIndex * slot + slot * 0.15),
        width: percent(slot * 0.7),
        y: yOf(base + value),
        height: Number((yOf(base) - yOf(base + value)).toFixed(2)),
        series: index,
        title: `${day} · ${name}: ${whole.format(value)} ${unit}`,
      });
      base += value;
    });
  });

  const total = dayTotals.reduce((sum, value) => sum + value, 0);
  // Label every seventh day counting back from the last, so today always has its label.
  const last = usage.days.length - 1;
  const dayLabels = usage.days.flatMap((day, index) => ((last - index) % 7 === 0 ? [{ x: percent(index * slot + slot / 2), label: shortDay(day) }] : []));
  return {
    metric,
    height: CHART_HEIGHT,
    empty: total === 0,
    series,
    segments,
    gridlines: steps.map((value) => ({ y: yOf(value), label: compact.format(value) })),
    dayLabels,
    summary: `${metric === 'requests' ? 'Requests' : 'Tokens'} per day from ${usage.from} to ${usage.to} (${usage.tz}): ${whole.format(total)} in all${
      series.length ? `, ${series.map((entry) => `${entry.label} ${whole.format(entry.total)}`).join(', ')}` : ''
    }.`,
  };
}
