/**
 * GET /v1/key (and /api/v1/key): any key reads itself, in OpenRouter's shape `{"data": {…}}`
 * (accounts/key-figures.ts), plus the router's own limits: the plan, its monthly request quota and reset,
 * the per-minute limit and the in-flight cap. GET /v1/credits: the organization's managed-access spend this
 * month and what its plan's spend cap still allows, as OpenRouter's `total_credits`/`total_usage` plus
 * ours; readable by an ordinary key (OpenRouter asks for a management key, and clients then scrape its web
 * page). Neither counts against the monthly quota.
 */
import type { H3Event } from 'h3';
import { keyFigures, usd } from '../../accounts/key-figures.js';
import { RouterError } from '../../core/errors.js';
import { quotaPeriod } from '../../core/quota-period.js';
import { usdToNano } from '../../usage/nano-usd.js';
import type { RouterDeps } from '../router-deps.js';
import type { StandingRequest } from '../request-context.js';

export function createKeyInfoRoute(deps: RouterDeps) {
  return async (_event: H3Event, request: StandingRequest) => {
    const key = await deps.store.getApiKey(request.caller.keyId);
    if (!key) throw new RouterError('not_found', 'This key is no longer on record.');
    const now = deps.clock.now();
    const [figures, ownLimits] = await Promise.all([keyFigures({ store: deps.store, ledger: deps.usage.store }, key, now), deps.keyLimits.get(key.id)]);
    const plan = request.plan;
    const planPerMinute = plan?.requestsPerMinute ?? 0;
    const perMinute = ownLimits.requestsPerMinute === null ? planPerMinute : Math.min(planPerMinute, ownLimits.requestsPerMinute);
    return {
      data: {
        ...figures,
        is_free_tier: plan === undefined || plan.priceUsdMonthly === 0,
        rate_limit: { requests: perMinute, interval: '60s' },
        // The router's own fields, beside OpenRouter's.
        plan: plan?.id ?? null,
        monthly_requests: {
          limit: request.quota.limit,
          used: request.quota.used,
          remaining: Math.max(0, request.quota.limit - request.quota.used),
          resets_at: request.quota.period.resetsAt,
        },
        key_monthly_request_limit: ownLimits.monthlyRequests,
        requests_per_minute: perMinute,
        max_concurrent_requests: plan?.maxConcurrentRequests ?? 0,
      },
    };
  };
}

export function createCreditsRoute(deps: RouterDeps) {
  return async (_event: H3Event, request: StandingRequest) => {
    const now = deps.clock.now();
    const period = quotaPeriod(now);
    const standing = await deps.usage.store.readSpend(request.caller.accountId, period.key, new Date(now).toISOString());
    const spentNano = standing.spentNanoUsd + standing.reservedNanoUsd;
    const capUsd = request.plan?.managedSpendCapUsd;
    const capNano = capUsd === undefined ? null : usdToNano(capUsd);
    return {
      data: {
        // OpenRouter's pair: a client's balance is total_credits − total_usage. With no cap, nothing is
        // bought in advance: the credits are what was used.
        total_credits: usd(capNano ?? spentNano),
        total_usage: usd(spentNano),
        plan: request.plan?.id ?? null,
        period: period.key,
        resets_at: period.resetsAt,
        spend_cap_usd: capNano === null ? null : usd(capNano),
        spent_usd: usd(standing.spentNanoUsd),
        held_usd: usd(standing.reservedNanoUsd),
        remaining_usd: capNano === null ? null : usd(Math.max(0, capNano - spentNano)),
      },
    };
  };
}
