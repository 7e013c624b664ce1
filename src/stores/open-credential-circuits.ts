/**
 * Where credential circuits are shared (routing/credential-health.ts), by the `rateLimit` setting like
 * the limiters: with Redis, across every instance and worker (stores/redis/share-credential-circuits.ts);
 * with the memory backend in a cluster, across the workers through the primary
 * (stores/cluster/share-credential-circuits.ts); in a single process, nowhere (memory is already shared).
 * Redis is imported only when used. Returns the stop.
 */
import type { RateLimitConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import type { CredentialHealth } from '../routing/credential-health.js';
import type { ClusterChannel } from './cluster/cluster-channel.js';
import { shareCredentialCircuits } from './cluster/share-credential-circuits.js';

export async function openCredentialCircuits(config: RateLimitConfig, health: CredentialHealth, clock: Clock, primary?: ClusterChannel): Promise<() => Promise<void>> {
  if (config.backend === 'redis' && config.redisUrl) {
    const { shareCredentialCircuitsInRedis } = await import('./redis/share-credential-circuits.js');
    return shareCredentialCircuitsInRedis(health, { url: config.redisUrl, keyPrefix: config.keyPrefix, clock });
  }
  if (primary) {
    const stop = shareCredentialCircuits(health, primary);
    return async () => stop();
  }
  return async () => undefined;
}
