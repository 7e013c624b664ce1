/** The status page's last-hour strip as server-side SVG: one bar per minute, coloured by health. */
import type { CircuitState } from '../routing/provider-health.js';
import type { HealthSample } from './status-history.js';
import { HISTORY_MINUTES } from './status-history.js';

export interface StripBar {
  x: number;
  kind: 'ok' | 'mixed' | 'bad' | 'idle';
  title: string;
}

/**
 * How a minute (or the present) reads from its circuit state and success rate. A closed circuit only
 * means the breaker has not tripped yet: with no traffic there is nothing to call healthy, and a closed
 * circuit beside a failing success rate is not "operational" (a newcomer saw exactly that: 0 % success
 * under an "operational" badge).
 */
export function healthKind(state: CircuitState, successRate: number | null): StripBar['kind'] {
  if (state === 'open') return 'bad';
  if (state === 'half_open') return 'mixed';
  if (successRate === null) return 'idle';
  if (successRate < 0.5) return 'bad';
  return successRate < 0.9 ? 'mixed' : 'ok';
}

/** The badge beside a provider's name: its present state in words, and the CSS class that colours it. */
export function providerBadge(state: CircuitState, successRate: number | null): { label: string; className: string } {
  if (state === 'open') return { label: 'down', className: 'open' };
  if (state === 'half_open') return { label: 'recovering', className: 'half_open' };
  const kind = healthKind(state, successRate);
  if (kind === 'idle') return { label: 'no data', className: 'idle' };
  if (kind === 'bad') return { label: 'failing', className: 'open' };
  if (kind === 'mixed') return { label: 'degraded', className: 'half_open' };
  return { label: 'operational', className: 'closed' };
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
    const kind = healthKind(sample.state, sample.successRate);
    const rate = sample.successRate === null ? 'no traffic' : `${Math.round(sample.successRate * 100)}% success`;
    return { x: i, kind, title: `${time} UTC: circuit ${sample.state.replace('_', '-')}, ${rate}` };
  });
}

export function summarize(bars: readonly StripBar[]): string {
  const counts = { ok: 0, mixed: 0, bad: 0, idle: 0 };
  for (const bar of bars) counts[bar.kind]++;
  return `${counts.ok} healthy, ${counts.mixed} degraded, ${counts.bad} down, ${counts.idle} without data`;
}
