/**
 * quirk(gemini): Google resets the Gemini API's per-day quotas at midnight Pacific time, not UTC
 * (ai.google.dev/gemini-api/docs/rate-limits). A key refused for its daily quota is skipped until then:
 * UTC midnight would be 7 or 8 hours early, and the refused probe at that hour would then skip the key
 * until the next UTC midnight, a whole day past Google's reset.
 */
const PACIFIC = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
});

/** The first Pacific midnight after `nowMs` (epoch ms), daylight saving time included. */
export function nextPacificMidnight(nowMs: number): number {
  const today = pacificParts(nowMs);
  const tomorrowUtc = Date.UTC(today.year, today.month - 1, today.day + 1);
  // Pacific time is UTC-8 (PST) or UTC-7 (PDT); midnight is never inside a change (those happen at 02:00).
  for (const offsetHours of [7, 8]) {
    const candidate = tomorrowUtc + offsetHours * 3_600_000;
    const parts = pacificParts(candidate);
    if (parts.hour === 0 && parts.minute === 0) return candidate;
  }
  return tomorrowUtc + 8 * 3_600_000;
}

function pacificParts(ms: number): { year: number; month: number; day: number; hour: number; minute: number } {
  const parts: Record<string, number> = {};
  for (const part of PACIFIC.formatToParts(ms)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute! };
}
