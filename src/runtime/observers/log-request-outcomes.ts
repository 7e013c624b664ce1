/**
 * What an operator needs to diagnose a request that went wrong, from its RequestOutcome: one line per
 * failed upstream attempt (provider, upstream status or transport reason, latency) and one per request
 * that did not end in a clean 2xx (also a stream that failed after its 200). Identifiers, codes and
 * timings only: never the prompt, a key, a cookie or a provider body.
 */
import type { ConsolaInstance } from 'consola';
import type { RequestObserver, RequestOutcome } from '../../http/request-outcome.js';

type Logger = Pick<ConsolaInstance, 'debug' | 'info' | 'warn'>;

export function logRequestOutcomes(logger: Logger): RequestObserver {
  return {
    onRequestFinished(outcome) {
      logFailedAttempts(logger, outcome);
      logUnsuccessfulOutcome(logger, outcome);
    },
  };
}

function logFailedAttempts(logger: Logger, outcome: RequestOutcome): void {
  for (const attempt of outcome.attempts) {
    if (attempt.error === null || attempt.skipped) continue;
    const what = attempt.status === null ? attempt.error : `HTTP ${attempt.status} ${attempt.error}`;
    logger.warn(`[${outcome.requestId}] upstream attempt failed: ${attempt.provider} (${attempt.model}) ${what} after ${attempt.latencyMs} ms`, {
      requestId: outcome.requestId,
      ...traceIdOf(outcome),
      accountId: outcome.accountId,
      provider: attempt.provider,
      model: attempt.model,
      upstreamStatus: attempt.status,
      reason: attempt.error,
      latencyMs: attempt.latencyMs,
    });
  }
}

function logUnsuccessfulOutcome(logger: Logger, outcome: RequestOutcome): void {
  const clean = outcome.status >= 200 && outcome.status < 300 && outcome.errorCode === null;
  if (clean) return;
  const inStream = outcome.status >= 200 && outcome.status < 300;
  const code = outcome.errorCode ?? (outcome.clientClosed ? 'client_closed_request' : 'none');
  const line = `[${outcome.requestId}] ${outcome.endpoint} ${inStream ? `${outcome.status}, failed in-stream:` : '→'} ${outcome.status === 499 ? 'client closed' : outcome.status} ${code}${
    outcome.accountId ? ` (account ${outcome.accountId}${outcome.routeId ? `, ${outcome.routeId}` : ''})` : ''
  } in ${outcome.totalMs} ms`;
  const fields = {
    requestId: outcome.requestId,
    ...traceIdOf(outcome),
    accountId: outcome.accountId,
    keyId: outcome.keyId,
    endpoint: outcome.endpoint,
    route: outcome.routeId,
    status: outcome.status,
    code,
    upstream: outcome.servedBy?.providerId ?? null,
    attempts: outcome.attempts.filter((attempt) => !attempt.skipped).length,
    retryCount: outcome.retryCount,
    counted: outcome.counted,
    totalMs: outcome.totalMs,
  };
  // A client leaving is not the router's failure; a 5xx or a stream that broke is worth a warning.
  if (outcome.status === 499) logger.debug(line, fields);
  else if (outcome.status >= 500 || inStream) logger.warn(line, fields);
  else logger.info(line, fields);
}

/** With tracing on, the request's trace id, so a log line leads to its trace (and back). */
function traceIdOf(outcome: RequestOutcome): { traceId?: string } {
  return outcome.trace ? { traceId: outcome.trace.traceId } : {};
}
