/**
 * One cheap call (a one-token chat completion) with a given credential to one provider, through the
 * same adapter and upstream client as real traffic, but outside failover and circuit breakers: a
 * person testing a wrong key must not mark the provider unhealthy for everyone.
 */
import type { ProviderConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { RouterError } from '../core/errors.js';
import { UpstreamStreamError } from '../upstream/upstream-failure.js';
import { errorCode, UpstreamTransportError } from '../upstream/upstream-client.js';
import { completeChatAttempt, type AttemptDeps } from './chat-attempts.js';
import { AttemptFailed } from './failover.js';

export type CredentialTestOutcome =
  | { ok: true; latencyMs: number; model: string }
  /**
   * `status` is the provider's HTTP status, or null when it never answered. Never a response body.
   * `unreached` when the call never got an answer (DNS, refused, TLS, timeout), with the system's code
   * for it (ECONNREFUSED, ENOTFOUND, a TLS code) when there is one: the key was not checked at all.
   */
  | { ok: false; status: number | null; reason: string; unreached?: { code: string | undefined } };

export async function testCredential(
  deps: AttemptDeps & { clock: Clock },
  provider: ProviderConfig,
  model: string,
  credential: string,
  signal: AbortSignal,
): Promise<CredentialTestOutcome> {
  const startedAt = deps.clock.now();
  const chat = { model, messages: [{ role: 'user' as const, content: 'ping' }], max_tokens: 1 };
  try {
    const candidate = { provider, target: { provider: provider.id, model, weight: 1 }, credential, credentialSource: 'byok' as const };
    await completeChatAttempt(deps, candidate, chat, signal);
    return { ok: true, latencyMs: deps.clock.now() - startedAt, model };
  } catch (error) {
    if (error instanceof AttemptFailed && error.transport) return unreached(error.transport);
    if (error instanceof AttemptFailed) return { ok: false, status: error.failure.status, reason: error.failure.code ?? error.failure.type };
    if (error instanceof UpstreamStreamError) return { ok: false, status: error.failure.status, reason: error.failure.code ?? error.failure.type };
    if (error instanceof UpstreamTransportError) return unreached(error);
    if (error instanceof RouterError) return { ok: false, status: null, reason: error.code };
    return { ok: false, status: null, reason: 'invalid_upstream_response' };
  }
}

function unreached(error: UpstreamTransportError): CredentialTestOutcome {
  return { ok: false, status: null, reason: error.reason, unreached: { code: errorCode(error.cause) } };
}
