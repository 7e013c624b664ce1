/**
 * Circuit breakers keyed by credential: one per (account, provider), fed only by what a provider says
 * about a key: 401, 402 or 403 (the key is rejected, or its account has no credit) and 429 (that key is
 * throttled, or its quota or balance is used up). A key's trouble is its owner's, so none of this ever
 * reaches the provider's own circuit (provider-health.ts), which would take the provider away from
 * every account and show it degraded on /status. The operator's managed key is one owner too
 * (MANAGED_OWNER), shared by every account it serves.
 *
 * Three ways to be skipped:
 * - throttled (a 429 rate limit): at once, for exactly as long as the provider asked (Retry-After, its
 *   rate-limit reset headers, Gemini's RetryInfo: core/retry-after.ts), at most MAX_THROTTLE_MS; then the
 *   key is used as before. A throttle that names no wait skips nothing: the next request asks again.
 * - exhausted (a 429 that waiting does not clear: a used-up quota or balance): until the quota's reset
 *   when the provider names it (Gemini's per-day quotas), else like a rejection;
 * - rejected (401, 402, 403): `failureThreshold` failures in a row open it for `cooldownMs`.
 * After an exhaustion or a rejection one probe goes first; its success closes the circuit, its failure
 * opens it again.
 *
 * A record remembers which credential it judged (by a fingerprint, never the key), so a replaced key
 * starts clean. In memory and bounded, like the decrypted credentials it mirrors
 * (accounts/provider-credentials.ts); every change of a record is reported to `onChange`, and one learnt
 * from another worker or instance is applied with `adopt` (stores/cluster/, stores/redis/
 * share-credential-circuits.ts), so every worker and instance skips the same keys and the account app
 * shows the same badge on each. Only the verdicts travel; the failures counted towards a threshold stay
 * with the process that saw them.
 */
import { createHash } from 'node:crypto';
import type { CircuitBreakerConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { createBoundedCache } from '../core/bounded-cache.js';
import type { UpstreamFailure } from '../upstream/upstream-failure.js';

/** Why a candidate was skipped for its credential (an attempt's `error` in the retry trail). */
export type CredentialSkip = 'credential_rejected' | 'credential_throttled' | 'credential_exhausted';

/** The provider's last rejection of an account's key: what the account app shows. */
export interface CredentialRejection {
  status: number;
  /** Epoch ms. */
  at: number;
}

/** What a provider's refusal says about the key: the parts of an UpstreamFailure this reads. */
export type CredentialVerdict = Pick<UpstreamFailure, 'status'> & Partial<Pick<UpstreamFailure, 'type' | 'code' | 'retryAfterSeconds' | 'quotaResetsAt'>>;

/** The owner under which the operator's managed key is judged: one key, whichever account it served. */
export const MANAGED_OWNER = '\u0000managed';

/**
 * One key's circuit as another worker or instance learns it: its owner, provider, the key's fingerprint
 * (never the key), and its state. Neither `open` nor `rejection`: the key was accepted, replaced or
 * forgotten (an empty fingerprint: whichever key it was).
 */
export interface CredentialCircuitChange {
  owner: string;
  provider: string;
  fingerprint: string;
  open?: { skip: CredentialSkip; until: number; probeAfter: boolean };
  rejection?: CredentialRejection;
}

interface CredentialRecord {
  /** The key this record judges (fingerprintOf); another key for the same provider starts a new record. */
  fingerprint: string;
  /** Rejections and exhaustions in a row (throttles are not counted: each says its own wait). */
  consecutiveFailures: number;
  skip: CredentialSkip;
  /** Skipped until this instant (epoch ms); null while closed. */
  openUntil: number | null;
  /** When openUntil passes: one probe first (rejected, exhausted), or simply closed again (throttled). */
  probeAfter: boolean;
  probeInFlight: boolean;
  rejection: CredentialRejection | null;
}

/** A throttle's wait is honoured up to this long; a longer ask is probed sooner. */
export const MAX_THROTTLE_MS = 10 * 60_000;

/** Statuses with which a provider judges the credential, not itself. */
export function isCredentialVerdict(status: number): boolean {
  return status === 401 || status === 402 || status === 403 || status === 429;
}

/** A 429 that waiting minutes does not clear: OpenAI's insufficient_quota, Anthropic's spend limit, Gemini's daily quota. */
function isExhaustion(failure: CredentialVerdict): boolean {
  return failure.code === 'insufficient_quota' || failure.type === 'insufficient_quota' || failure.quotaResetsAt !== undefined;
}

export class CredentialHealth {
  readonly #records;
  readonly #listeners: Array<(change: CredentialCircuitChange) => void> = [];

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
    if (!record || record.openUntil === null) return undefined;
    if (this.clock.now() < record.openUntil) return record.skip;
    if (!record.probeAfter) {
      record.openUntil = null;
      return undefined;
    }
    if (record.probeInFlight) return record.skip;
    record.probeInFlight = true;
    return undefined;
  }

  /** How long a skipped credential stays skipped, in seconds (0 when it is not). */
  skippedForSeconds(accountId: string, providerId: string, credential: string): number {
    const openUntil = this.#current(accountId, providerId, credential)?.openUntil ?? null;
    return openUntil === null ? 0 : Math.max(0, (openUntil - this.clock.now()) / 1000);
  }

  /** The provider refused this credential (401, 402, 403 or 429). */
  recordFailure(accountId: string, providerId: string, credential: string, failure: CredentialVerdict): void {
    const key = keyOf(accountId, providerId);
    const fingerprint = fingerprintOf(credential);
    let record = this.#records.get(key);
    if (!record || record.fingerprint !== fingerprint) {
      record = { fingerprint, consecutiveFailures: 0, skip: 'credential_rejected', openUntil: null, probeAfter: false, probeInFlight: false, rejection: null };
      this.#records.set(key, record);
    }
    const now = this.clock.now();
    record.probeInFlight = false;
    if (failure.status === 429 && !isExhaustion(failure)) {
      if (failure.retryAfterSeconds === undefined || !(failure.retryAfterSeconds > 0)) return;
      this.#open(record, 'credential_throttled', now + Math.min(MAX_THROTTLE_MS, millisecondsOf(failure.retryAfterSeconds)), false);
    } else {
      record.consecutiveFailures++;
      const skip = failure.status === 429 ? 'credential_exhausted' : 'credential_rejected';
      if (skip === 'credential_rejected') record.rejection = { status: failure.status, at: now };
      if (failure.quotaResetsAt !== undefined && failure.quotaResetsAt > now) this.#open(record, skip, failure.quotaResetsAt, true);
      else if (record.probeAfter || record.consecutiveFailures >= this.config.failureThreshold) this.#open(record, skip, now + this.config.cooldownMs, true);
    }
    this.#report(accountId, providerId, record);
  }

  /** The provider accepted this credential (any answer but 401, 402, 403 or 429): its record is gone. */
  recordSuccess(accountId: string, providerId: string, credential: string): void {
    if (this.#records.size === 0) return;
    const record = this.#current(accountId, providerId, credential);
    if (!record) return;
    this.#records.delete(keyOf(accountId, providerId));
    this.#emit({ owner: accountId, provider: providerId, fingerprint: record.fingerprint });
  }

  /** Called with every change this instance makes (not with the ones it adopts). */
  onChange(listener: (change: CredentialCircuitChange) => void): void {
    this.#listeners.push(listener);
  }

  /** Apply a change another worker or instance made; a record of another key of the same owner is replaced. */
  adopt(change: CredentialCircuitChange): void {
    const key = keyOf(change.owner, change.provider);
    const record = this.#records.get(key);
    if (!change.open && !change.rejection) {
      if (record && (change.fingerprint === '' || record.fingerprint === change.fingerprint)) this.#records.delete(key);
      return;
    }
    const same = record?.fingerprint === change.fingerprint;
    this.#records.set(key, {
      fingerprint: change.fingerprint,
      consecutiveFailures: same ? record!.consecutiveFailures : 0,
      skip: change.open?.skip ?? 'credential_rejected',
      openUntil: change.open?.until ?? null,
      probeAfter: change.open?.probeAfter ?? false,
      probeInFlight: same ? record!.probeInFlight : false,
      rejection: change.rejection ?? null,
    });
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
    this.#emit({ owner: accountId, provider: providerId, fingerprint: '' });
  }

  #report(owner: string, provider: string, record: CredentialRecord): void {
    if (this.#listeners.length === 0) return;
    const change: CredentialCircuitChange = { owner, provider, fingerprint: record.fingerprint };
    if (record.openUntil !== null) change.open = { skip: record.skip, until: record.openUntil, probeAfter: record.probeAfter };
    if (record.rejection) change.rejection = record.rejection;
    // Failures below the threshold change nothing another process acts on.
    if (change.open || change.rejection) this.#emit(change);
  }

  #emit(change: CredentialCircuitChange): void {
    for (const listener of this.#listeners) listener(change);
  }

  #open(record: CredentialRecord, skip: CredentialSkip, until: number, probeAfter: boolean): void {
    record.skip = skip;
    record.openUntil = until;
    record.probeAfter = probeAfter;
  }

  /** The record of this very credential; a record of a replaced key is dropped. */
  #current(accountId: string, providerId: string, credential: string): CredentialRecord | undefined {
    if (this.#records.size === 0) return undefined;
    const key = keyOf(accountId, providerId);
    const record = this.#records.get(key);
    if (!record) return undefined;
    if (record.fingerprint === fingerprintOf(credential)) return record;
    this.#records.delete(key);
    return undefined;
  }
}

/** What identifies a key across processes without being it: 128 bits of its SHA-256. */
export function fingerprintOf(credential: string): string {
  return createHash('sha256').update(credential).digest('base64url').slice(0, 22);
}

function keyOf(accountId: string, providerId: string): string {
  return `${accountId}\u0000${providerId}`;
}

/** Seconds as whole milliseconds, rounded up, without float noise turning 518.815 s into 518 816 ms. */
function millisecondsOf(seconds: number): number {
  return Math.ceil(Math.round(seconds * 1_000_000) / 1000);
}
