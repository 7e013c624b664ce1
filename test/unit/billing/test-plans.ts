import type { PlanConfig } from '../../../src/config/types.js';

/** A plan as plans.yaml would give it, with only what billing reads varying. */
export const testPlan = (id: string, price: number, stripePriceId?: string): PlanConfig => ({
  id,
  name: id,
  monthlyRequests: 1000,
  requestsPerMinute: 10,
  maxConcurrentRequests: 2,
  routeProfiles: ['router/frontier'],
  priceUsdMonthly: price,
  ...(stripePriceId ? { stripePriceId } : {}),
});
