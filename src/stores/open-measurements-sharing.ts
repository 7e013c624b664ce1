/**
 * Picks how measured routing's figures and leaders are shared (routing/route-measurements.ts): through
 * Redis when the `rateLimit` setting uses it (every instance, and every worker of each, shares one
 * state), else through the primary in a cluster worker, else not at all (one process). Redis is imported
 * only when used. Returns the function that stops sharing, if any.
 */
import type { RateLimitConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import type { RouteMeasurements } from '../routing/route-measurements.js';
import type { ClusterChannel } from './cluster/cluster-channel.js';
import { shareMeasurements } from './cluster/share-measurements.js';

export async function openMeasurementsSharing(
  config: RateLimitConfig,
  measurements: RouteMeasurements,
  options: { clock: Clock; primary?: ClusterChannel | undefined },
): Promise<(() => void) | undefined> {
  if (config.backend === 'redis' && config.redisUrl) {
    const { shareMeasurementsThroughRedis } = await import('./redis/share-measurements-redis.js');
    return shareMeasurementsThroughRedis(measurements, { url: config.redisUrl, keyPrefix: config.keyPrefix, clock: options.clock });
  }
  return options.primary ? shareMeasurements(measurements, options.primary) : undefined;
}
