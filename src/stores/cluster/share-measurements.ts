/**
 * Measured routing's state shared by the workers of a cluster (routing/route-measurements.ts: figures
 * and hysteresis leaders). Each worker records its own samples and decides its own changes of leader at
 * once, and sends them to the primary in one message per interval; the primary folds every worker's
 * contributions into one state (measurements-exchange.ts) and answers each message with the whole of it,
 * which the worker adopts. So every worker ranks by the same figures and leaders, at most one interval
 * (plus one round trip) behind, and a worker with no traffic of its own still learns them (its message
 * is then empty). With Redis configured the workers share through Redis instead, like any instance.
 */
import { RouteMeasurements } from '../../routing/route-measurements.js';
import type { Clock } from '../../core/clock.js';
import { isClusterMessage, type ClusterChannel, type PrimaryHandler } from './cluster-channel.js';
import { adoptShared, foldContribution, PendingContribution, sharedState } from '../measurements-exchange.js';

export const SHARE_INTERVAL_MS = 1000;

/** The worker's side: returns a function that stops sharing. */
export function shareMeasurements(measurements: RouteMeasurements, channel: ClusterChannel, intervalMs = SHARE_INTERVAL_MS): () => void {
  const pending = new PendingContribution(measurements);
  const stopListening = channel.onMessage((message) => {
    if (!isClusterMessage(message, 'measurements-figures')) return;
    pending.settle();
    adoptShared(measurements, message, pending);
  });
  const timer = setInterval(() => channel.send({ router: 'measurements', ...pending.take() }), intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    stopListening();
  };
}

/** The primary's side: one state for every worker. */
export function serveMeasurements(clock: Clock): PrimaryHandler {
  const shared = new RouteMeasurements(clock);
  return (message, reply) => {
    if (!isClusterMessage(message, 'measurements')) return false;
    foldContribution(shared, message);
    reply({ router: 'measurements-figures', ...sharedState(shared) });
    return true;
  };
}
