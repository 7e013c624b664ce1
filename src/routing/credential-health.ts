/**
 * Circuit breakers keyed by credential: one per (account, provider), fed only by what a provider says
 * about an account's own key (BYOK): 401, 402 or 403 (the key is rejected, or its account has no credit) and 429 (that key is throttled, or
 * its balance is used up). One account's bad or exhausted key is that account's problem, so none of this
 * ever reaches the provider's own circuit (provider-health.ts), which would take the provider away from
 * every account. The same state machine as a provider's: `failureThreshold` failures in a row open it,
 * for `cooldownMs` (a throttle: for the upstream's Retry-After when it gave one, at most
 * MAX_THROTTLE_MS); then one probe, whose success closes it and whose failure opens it again.
 *
 * A record remembers which credential it judged, so a replaced key starts clean. In memory, per instance
 * and bounded, like the decrypted credentials it mirrors (accounts/provider-credentials.ts).
 */
import type { CircuitBreakerConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { createBoundedCache } from '../core/bounded-cache.js';

/** Why a candidate was skipped for its credential (an attempt's `error` in the retry trail). */
export type CredentialSkip = 'credential_rejected' | 'credential_throttled';

/** The provider's last rejection of an account's key: what the account app shows. */
export interface CredentialRejection {
  status: number;
  /** Epoch ms. */
  at: number;
}

interface CredentialRecord {
  /** The key this record judges; another key for the same provider starts a new record. */
  credential: string;
  consecutiveFailures: number;
  skip: CredentialSkip;
  openedAt: number | null;
  openForMs: number;
  probeInFlight: boolean;
  rejection: CredentialRejection | null;
}

/** A throttle's Retry-After is honoured up to this long; longer ones are probed sooner. */
export const MAX_THROTTLE_MS = 10 * 60_000;

/** Statuses with which a provider judges the credential, not itself. */
export function isCredentialVerdict(status: number): boolean {
  return status === 401 || status === 402 || status === 403 || status === 429;
}

export class CredentialHealth {
  readonly #records;

  constructor(
    private readonly config: CircuitBreakerConfig,
    private readonly clock: Clock,
    entries = 50_000,
  ) {
    this.#records = createBoundedCache<string, CredentialRecord>({ entries });
  }

  /**
   * Undefined when a request may use this credential now (claiming the probe slot of a half-open
   * circuit); otherwise why to skip it.
   */
  skipReason(accountId: string, providerId: string, credential: string): CredentialSkip | undefined {
    const record = this.#current(accountId, providerId, credential);
    if (!record || record.openedAt === null) return undefined;
    if (this.clock.now() - record.openedAt < record.openForMs || record.probeInFlight) return record.skip;
    record.probeInFlight = true;
    return undefined;
  }

  /** The provider answered 401, 403 or 429 to this credential. */
  recordFailure(accountId: string, providerId: string, credential: string, failure: { status: number; retryAfterSeconds?: number }): void {
    const key = keyOf(accountId, providerId);
    let record = this.#records.get(key);
    if (!record || record.credential !== credential) {
      record = { credential, consecutiveFailures: 0, skip: 'credential_rejected', openedAt: null, openForMs: 0, probeInFlight: false, rejection: null };
      this.#records.set(key, record);
    }
    const now = this.clock.now();
    const throttled = failure.status === 429;
    record.consecutiveFailures++;
    record.probeInFlight = false;
    record.skip = throttled ? 'credential_throttled' : 'credential_rejected';
    if (!throttled) record.rejection = { status: failure.status, at: now };
    if (record.openedAt !== null || record.consecutiveFailures >= this.config.failureThreshold) {
      record.openedAt = now;
      record.openForMs =
        throttled && failure.retryAfterSeconds !== undefined ? Math.min(MAX_THROTTLE_MS, Math.ceil(failure.retryAfterSeconds * 1000)) : this.config.cooldownMs;
    }
  }

  /** The provider accepted this credential (any answer but 401, 403 or 429): its record is gone. */
  recordSuccess(accountId: string, providerId: string, credential: string): void {
    if (this.#records.size === 0) return;
    if (this.#current(accountId, providerId, credential)) this.#records.delete(keyOf(accountId, providerId));
  }

  /** Release a probe slot without a verdict (the provider failed on its own account, or the client left). */
  release(accountId: string, providerId: string, credential: string): void {
    if (this.#records.size === 0) return;
    const record = this.#current(accountId, providerId, credential);
    if (record) record.probeInFlight = false;
  }

  /** When the provider last rejected the account's key for it, if it has since accepted none. */
  rejection(accountId: string, providerId: string): CredentialRejection | undefined {
    return this.#records.get(keyOf(accountId, providerId))?.rejection ?? undefined;
  }

  /** The account replaced, removed or successfully tested its key: start clean. */
  forget(accountId: string, providerId: string): void {
    this.#records.delete(keyOf(accountId, providerId));
  }

  /** The record of this very credential; a record of a replaced key is dropped. */
  #current(accountId: string, providerId: string, credential: string): CredentialRecord | undefined {
    if (this.#records.size === 0) return undefined;
    const key = keyOf(accountId, providerId);
    const record = this.#records.get(key);
    if (!record) return undefined;
    if (record.credential === credential) return record;
    this.#records.delete(key);
    return undefined;
  }
}

function keyOf(accountId: string, providerId: string): string {
  return `${accountId}\u0000${providerId}`;
}
