/** Feeds every request outcome into the metrics (counters and latency histograms); labels from closed sets only. */
import { attemptOutcomeLabel, codeLabel, endpointLabel, knownLabel, statusClassLabel } from '../../metrics/label-values.js';
import type { RouterMetrics } from '../../metrics/router-metrics.js';
import type { RequestObserver } from '../../http/request-outcome.js';

const LIMIT_OF_CODE: Readonly<Record<string, string>> = {
  monthly_quota_exceeded: 'monthly_quota',
  rate_limit_exceeded: 'rate_limit',
  spend_cap_reached: 'spend_cap',
  key_quota_exceeded: 'key_quota',
  key_rate_limit_exceeded: 'key_rate_limit',
};

export function createMetricsObserver(metrics: RouterMetrics, known: { routes: readonly string[]; providers: readonly string[] }): RequestObserver {
  const routes = new Set(known.routes);
  const providers = new Set(known.providers);
  return {
    onRequestFinished(outcome) {
      const endpoint = endpointLabel(outcome.endpoint);
      const route = knownLabel(outcome.routeId, routes);
      metrics.requests.inc({ endpoint, route, status_class: statusClassLabel(outcome.status), code: codeLabel(outcome.errorCode) });
      metrics.requestDuration.observe({ endpoint, route }, outcome.totalMs / 1000);
      if (outcome.firstByteMs !== null && outcome.servedBy !== null) metrics.timeToFirstByte.observe({ endpoint, route }, outcome.firstByteMs / 1000);
      const limit = outcome.errorCode === null ? undefined : LIMIT_OF_CODE[outcome.errorCode];
      if (limit) metrics.limitRejections.inc({ limit });
      for (const attempt of outcome.attempts) {
        metrics.upstreamAttempts.inc({ provider: knownLabel(attempt.provider, providers), outcome: attemptOutcomeLabel(attempt) });
      }
      if (outcome.retryCount > 0) metrics.failovers.inc({ route }, outcome.retryCount);
    },
  };
}
