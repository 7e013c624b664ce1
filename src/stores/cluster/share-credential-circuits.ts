/**
 * Credential circuits shared by the workers of a cluster (routing/credential-health.ts): a worker sends
 * each change it makes to the primary, which relays it to every worker; each worker applies the others'
 * (its own come back too, and are passed by). So a key the provider throttled or rejected is skipped by
 * every worker, not found again by each at the cost of its own failing calls, and the account app's
 * badge reads the same on every worker. Messages carry a key's fingerprint, never the key.
 */
import type { CredentialCircuitChange, CredentialHealth } from '../../routing/credential-health.js';
import { isClusterMessage, type ClusterChannel, type ClusterMessage, type PrimaryHandler } from './cluster-channel.js';

const SKIPS: ReadonlySet<unknown> = new Set(['credential_rejected', 'credential_throttled', 'credential_exhausted']);
/** Owner and provider ids, fingerprints: none is longer (a change that says otherwise is not the router's). */
const MAX_ID_LENGTH = 200;

/** The worker's side: returns a function that stops sharing. */
export function shareCredentialCircuits(health: CredentialHealth, channel: ClusterChannel, pid = process.pid): () => void {
  let sharing = true;
  health.onChange((change) => {
    if (sharing) channel.send({ router: 'credential-circuit', from: pid, change });
  });
  const stopListening = channel.onMessage((message) => {
    if (isClusterMessage(message, 'credential-circuit') && message.from !== pid && isCredentialCircuitChange(message.change)) health.adopt(message.change);
  });
  return () => {
    sharing = false;
    stopListening();
  };
}

/** The primary's side: every change goes to every worker. */
export function relayCredentialCircuits(broadcast: (message: ClusterMessage) => void): PrimaryHandler {
  return (message) => {
    if (!isClusterMessage(message, 'credential-circuit')) return false;
    if (typeof message.from === 'number' && isCredentialCircuitChange(message.change)) broadcast({ router: 'credential-circuit', from: message.from, change: message.change });
    return true;
  };
}

/** A change as another process sent it: checked field by field before it may move a circuit here. */
export function isCredentialCircuitChange(value: unknown): value is CredentialCircuitChange {
  if (typeof value !== 'object' || value === null) return false;
  const { owner, provider, fingerprint, open, rejection } = value as Record<string, unknown>;
  if (![owner, provider, fingerprint].every((id) => typeof id === 'string' && id.length <= MAX_ID_LENGTH)) return false;
  if (open !== undefined) {
    const { skip, until, probeAfter } = (open ?? {}) as Record<string, unknown>;
    if (!SKIPS.has(skip) || !Number.isFinite(until) || typeof probeAfter !== 'boolean') return false;
  }
  if (rejection !== undefined) {
    const { status, at } = (rejection ?? {}) as Record<string, unknown>;
    if (!Number.isInteger(status) || !Number.isFinite(at)) return false;
  }
  return true;
}
