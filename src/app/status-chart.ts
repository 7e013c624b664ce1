/** The status page's last-hour strip as server-side SVG: one bar per minute, coloured by health. */
import type { HealthSample } from './status-history.js';
import { HISTORY_MINUTES } from './status-history.js';

export interface StripBar {
  x: number;
  kind: 'ok' | 'mixed' | 'bad' | 'idle';
  title: string;
}

/** The 60 bars, oldest first, for the hour ending at `nowMs` (pure, so it is easy to test). */
export function statusBars(samples: readonly HealthSample[], nowMs: number): StripBar[] {
  const lastMinute = Math.floor(nowMs / 60_000) * 60_000;
  const byMinute = new Map(samples.map((sample) => [sample.minute, sample]));
  return Array.from({ length: HISTORY_MINUTES }, (_, i) => {
    const minute = lastMinute - (HISTORY_MINUTES - 1 - i) * 60_000;
    const sample = byMinute.get(minute);
    const time = new Date(minute).toISOString().slice(11, 16);
    if (!sample) return { x: i, kind: 'idle', title: `${time} UTC: no data` };
    const kind = sample.state === 'open' ? 'bad' : sample.state === 'half_open' || (sample.successRate ?? 1) < 0.9 ? 'mixed' : 'ok';
    const rate = sample.successRate === null ? 'no traffic' : `${Math.round(sample.successRate * 100)}% success`;
    return { x: i, kind, title: `${time} UTC: circuit ${sample.state.replace('_', '-')}, ${rate}` };
  });
}

export function summarize(bars: readonly StripBar[]): string {
  const counts = { ok: 0, mixed: 0, bad: 0, idle: 0 };
  for (const bar of bars) counts[bar.kind]++;
  return `${counts.ok} healthy, ${counts.mixed} degraded, ${counts.bad} down, ${counts.idle} without data`;
}
