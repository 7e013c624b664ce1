/**
 * Label values from closed sets only. Anything a client or an upstream could choose (an unknown route,
 * an upstream's own error code) collapses into one fixed value, so labels can never carry account ids,
 * keys, prompts or provider text, and the number of series stays bounded.
 */
import { ERROR_TABLE } from '../core/errors.js';
import type { LedgerAttempt } from '../stores/ledger-store.js';

const ROUTER_CODES: ReadonlySet<string> = new Set([...Object.keys(ERROR_TABLE), 'upstream_stream_interrupted']);
const TRANSPORT_REASONS: ReadonlySet<string> = new Set(['connect_timeout', 'first_byte_timeout', 'idle_timeout', 'connection_error', 'aborted']);
/** Candidates skipped without a request: the provider's circuit, or the circuit of the account's own key. */
const SKIP_REASONS: ReadonlySet<string> = new Set(['circuit_open', 'credential_rejected', 'credential_throttled', 'credential_exhausted']);
const ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/messages/count_tokens', '/v1/messages', '/v1/embeddings', '/v1/rerank', '/v1/models'] as const;

export function endpointLabel(path: string): string {
  return ENDPOINTS.find((endpoint) => path === endpoint || path.startsWith(`${endpoint}/`)) ?? 'other';
}

export function codeLabel(code: string | null): string {
  if (code === null) return 'none';
  return ROUTER_CODES.has(code) ? code : 'upstream_error';
}

export function statusClassLabel(status: number): string {
  return status >= 100 && status <= 599 ? `${Math.floor(status / 100)}xx` : 'other';
}

export function attemptOutcomeLabel(attempt: LedgerAttempt): string {
  if (attempt.error === null) return 'ok';
  if (SKIP_REASONS.has(attempt.error)) return attempt.error;
  if (attempt.status !== null && attempt.status >= 100 && attempt.status <= 599) return `http_${attempt.status}`;
  return attempt.error !== null && TRANSPORT_REASONS.has(attempt.error) ? attempt.error : 'no_response';
}

/** Configured ids pass; anything else becomes `other` (providers and routes come from config, but labels stay closed by construction). */
export function knownLabel(value: string | null, known: ReadonlySet<string>): string {
  if (value === null) return 'none';
  return known.has(value) ? value : 'other';
}
