/**
 * What a provider-key Test found, in words a person can act on. Three failures need three different
 * actions, and one message for all of them ("did not accept the call") sent people to replace keys that
 * were fine when the router simply could not reach the provider:
 * - unreached (DNS, connection refused, TLS, timeout): the key was not checked at all; nothing to change
 *   in the key, try again or tell the operator;
 * - rejected (401, 403): the provider judged the key and refused it; replace it or fix its permissions;
 * - any other answer (402 no credit, 429, 5xx, another 4xx): the provider answered but did not say the key
 *   is bad; the message names the status and what usually helps.
 * Never a provider's response body: only the status and the short machine reason.
 */
import type { CredentialTestOutcome } from '../routing/test-credential.js';

export type CredentialTestVerdict = 'accepted' | 'unreached' | 'rejected' | 'upstream_error';

/** The network failures people recognise, by the system's code (Node's and undici's). */
const NETWORK_WORDS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'its host name did not resolve',
  EAI_AGAIN: 'its host name did not resolve',
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection was closed',
};

const TIMEOUT_WORDS: Readonly<Record<string, string>> = {
  connect_timeout: 'the connection timed out',
  first_byte_timeout: 'no answer in time',
  idle_timeout: 'the answer stalled',
  aborted: 'no answer in time',
};

function networkWords(reason: string, code: string | undefined): string {
  if (code && NETWORK_WORDS[code]) return NETWORK_WORDS[code];
  // Node's TLS failures: certificate codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, …) and ERR_TLS_*/ERR_SSL_*.
  if (code && /CERT|TLS|SSL/.test(code)) return 'the TLS handshake failed';
  return TIMEOUT_WORDS[reason] ?? 'the connection failed';
}

export function credentialTestVerdict(outcome: CredentialTestOutcome): CredentialTestVerdict {
  if (outcome.ok) return 'accepted';
  if (outcome.unreached) return 'unreached';
  if (outcome.status === 401 || outcome.status === 403) return 'rejected';
  return 'upstream_error';
}

/** The sentence the provider-keys page shows for a Test of `providerName`'s key. */
export function describeCredentialTest(providerName: string, outcome: CredentialTestOutcome): { verdict: CredentialTestVerdict; text: string } {
  const verdict = credentialTestVerdict(outcome);
  if (outcome.ok) return { verdict, text: `${providerName} accepted the key: a one-token call to ${outcome.model} succeeded in ${outcome.latencyMs} ms.` };
  if (outcome.unreached) {
    const why = networkWords(outcome.reason, outcome.unreached.code);
    return { verdict, text: `Could not reach ${providerName} (${why}), so the key was not checked. Try again shortly; if it persists, the router cannot reach ${providerName}, which no change to your key will fix.` };
  }
  if (verdict === 'rejected') {
    return { verdict, text: `${providerName} rejected this key (HTTP ${outcome.status}, ${outcome.reason}). Check that it is whole, not revoked, and allowed to call models, or replace it.` };
  }
  if (outcome.status === null) return { verdict, text: `The test call to ${providerName} could not be made (${outcome.reason}); the key was not checked.` };
  return { verdict, text: `${providerName} answered HTTP ${outcome.status} (${outcome.reason}) without judging the key: ${upstreamAdvice(outcome.status)}` };
}

function upstreamAdvice(status: number): string {
  if (status === 402) return 'the provider account behind the key has no credit; add credit with the provider.';
  if (status === 429) return 'the provider is rate-limiting the key or its account is out of quota; try again later.';
  if (status >= 500) return 'the provider is having trouble; try again later.';
  return 'the provider refused the test call itself; the key may still work for the models your routes use.';
}
