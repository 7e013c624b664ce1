/**
 * What one attempt is and how it fails: the candidate it is made on, its failures, and the one word a
 * failure is logged as. Apart from failover.ts, whose loop uses attempt-span.ts, so that attempt-span.ts
 * can name them without importing the loop back (no import cycles, .dependency-cruiser.cjs).
 * Importers keep naming them from failover.ts, which re-exports them.
 */
import type { ProviderConfig, RouteTarget } from '../config/types.js';
import type { UpstreamTransportError } from '../upstream/upstream-client.js';
import type { UpstreamFailure } from '../upstream/upstream-failure.js';
import type { SpanScope } from '../tracing/tracing.js';

/** How one attempt failed: an HTTP-level failure from the provider, or no response at all. */
export class AttemptFailed extends Error {
  constructor(readonly failure: UpstreamFailure, readonly transport?: UpstreamTransportError) {
    super(failure.message);
    this.name = 'AttemptFailed';
  }

  static fromTransport(error: UpstreamTransportError): AttemptFailed {
    const status = error.timedOut ? 504 : 502;
    return new AttemptFailed({ status, type: 'upstream_error', code: error.reason, message: error.message }, error);
  }
}

/**
 * The upstream answered (so its health is fine) but the answer cannot serve this call, e.g. a fusion
 * judge whose JSON fails its schema: the attempt counts as sent, and the next candidate is tried.
 */
export class CandidateUnfit extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'CandidateUnfit';
  }
}

/** Whose provider credential an attempt used: the account's own (BYOK) or the operator's (managed access). */
export type CredentialSource = 'byok' | 'managed';

export interface Candidate {
  target: RouteTarget;
  provider: ProviderConfig;
  credential: string;
  credentialSource: CredentialSource;
  /** Whose request this is (absent for the app's credential test): tool-call signatures are kept per account. */
  accountId?: string;
  /** This attempt's client span (tracing on): its context goes upstream as `traceparent` (chat-attempts.ts sendOrFail). */
  span?: SpanScope;
}

/** An upstream's error code as one safe word for summaries, logs and spans (codes are upstream-controlled text). */
export function oneWord(code: string): string {
  return code.toLowerCase().replace(/[^a-z0-9_]+/g, '_').slice(0, 40) || 'error';
}
