/** p50 and p99 (nearest rank) of latencies in milliseconds, kept at full (sub-millisecond) precision. */
export function summarizeLatencies(values) {
  const sorted = Float64Array.from(values).sort();
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return { count: sorted.length, p50: sorted.length ? rank(50) : NaN, p99: sorted.length ? rank(99) : NaN };
}
