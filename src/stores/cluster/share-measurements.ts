/**
 * Measured routing figures shared by the workers of a cluster (routing/route-measurements.ts). Each
 * worker records its own samples at once and sends them to the primary in one message per interval;
 * the primary folds every worker's samples into one set of figures and answers each message with the
 * whole set, which the worker adopts. So every worker ranks by the same figures, at most one interval
 * (plus one round trip) behind, and a worker with no traffic of its own still learns them (its message
 * is then empty). Bounded: at most MAX_PENDING samples wait in a worker; past that the oldest are dropped.
 */
import { RouteMeasurements, type MeasuredFigures, type MeasurementSample } from '../../routing/route-measurements.js';
import type { Clock } from '../../core/clock.js';
import { isClusterMessage, type ClusterChannel, type PrimaryHandler } from './cluster-channel.js';

export const SHARE_INTERVAL_MS = 1000;
const MAX_PENDING = 2000;

/** The worker's side: returns a function that stops sharing. */
export function shareMeasurements(measurements: RouteMeasurements, channel: ClusterChannel, intervalMs = SHARE_INTERVAL_MS): () => void {
  let pending: MeasurementSample[] = [];
  measurements.onRecord((sample) => {
    pending.push(sample);
    if (pending.length > MAX_PENDING) pending = pending.slice(-MAX_PENDING);
  });
  const stopListening = channel.onMessage((message) => {
    if (isClusterMessage(message, 'measurements-figures') && Array.isArray(message.figures)) measurements.replace(message.figures);
  });
  const timer = setInterval(() => {
    const samples = pending;
    pending = [];
    channel.send({ router: 'measurements', samples });
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    stopListening();
  };
}

/** The primary's side: one set of figures for every worker. */
export function serveMeasurements(clock: Clock): PrimaryHandler {
  const shared = new RouteMeasurements(clock);
  return (message, reply) => {
    if (!isClusterMessage(message, 'measurements')) return false;
    if (Array.isArray(message.samples)) for (const sample of message.samples.slice(0, MAX_PENDING)) if (isSample(sample)) shared.record(sample);
    reply({ router: 'measurements-figures', figures: shared.snapshot() });
    return true;
  };
}

function isSample(value: unknown): value is MeasurementSample {
  const sample = value as Partial<MeasurementSample> | null;
  return (
    typeof sample === 'object' &&
    sample !== null &&
    typeof sample.provider === 'string' &&
    typeof sample.model === 'string' &&
    typeof sample.ok === 'boolean' &&
    (sample.ttfbMs === undefined || typeof sample.ttfbMs === 'number') &&
    (sample.tokensPerSecond === undefined || typeof sample.tokensPerSecond === 'number')
  );
}

export type { MeasuredFigures };
