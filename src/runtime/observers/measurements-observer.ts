/**
 * Feeds the measured routing figures (routing/route-measurements.ts) from every finished model request:
 * the attempt that served it gives time to first byte and, when the upstream reported its tokens,
 * output tokens per second; each failed attempt counts against its provider and model. Only failures
 * that say something about the provider count (5xx, timeouts, connection errors): a 401, 403 or 429 is
 * usually one account's key, and one account must not move the ranking every other account gets.
 */
import type { RouteMeasurements } from '../../routing/route-measurements.js';
import type { RequestObserver, RequestOutcome } from '../../http/request-outcome.js';

/** Below this, a stream's generation time is too short to divide by: the attempt's own latency is used. */
const MIN_GENERATION_MS = 50;

export function createMeasurementsObserver(measurements: RouteMeasurements): RequestObserver {
  return {
    onRequestFinished(outcome: RequestOutcome) {
      if (outcome.kind !== 'model') return;
      for (const attempt of outcome.attempts) {
        if (attempt.skipped) continue;
        if (attempt.error === null) {
          measurements.record({ provider: attempt.provider, model: attempt.model, ok: true, ttfbMs: attempt.latencyMs, ...throughputOf(outcome, attempt.latencyMs) });
        } else if (attempt.status === null || attempt.status >= 500) {
          measurements.record({ provider: attempt.provider, model: attempt.model, ok: false });
        }
      }
    },
  };
}

function throughputOf(outcome: RequestOutcome, attemptMs: number): { tokensPerSecond?: number } {
  const tokens = outcome.usage?.completion;
  if (!tokens || outcome.clientClosed || outcome.errorCode !== null) return {};
  const generationMs = outcome.firstByteMs === null ? 0 : outcome.totalMs - outcome.firstByteMs;
  const ms = generationMs >= MIN_GENERATION_MS ? generationMs : attemptMs;
  return ms > 0 ? { tokensPerSecond: (tokens * 1000) / ms } : {};
}
