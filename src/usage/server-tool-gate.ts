/**
 * Server tools on operator-managed provider keys: what a request asks an upstream to run and bill per call
 * (web search, web fetch, code execution, MCP connectors, hosted Responses tools) or to bill above its
 * standard rates (a priority tier). On managed keys each is refused unless the plan allows it
 * (plans.yaml `managedServerTools.allow`) and some provider of the route prices it (pricing.yaml
 * `serverToolPrices`); the calls it may make are held to the plan's `maxCallsPerRequest`, and the spend
 * gate's estimate adds that many calls at the dearest price. Tiers are never allowed: the ledger prices
 * tokens at standard rates only.
 */
import type { PlanConfig, RouteProfileConfig } from '../config/types.js';
import { routeTargets } from '../config/route-targets.js';
import { upgradePlanFor } from '../config/upgrade-plan.js';
import { RouterError } from '../core/errors.js';
import type { PriceBook } from './model-prices.js';
import { usdToNano } from './nano-usd.js';

/** A feature of the request its upstream bills beyond tokens (formats/server-tools.ts reads them from the body). */
export interface BillableFeature {
  name: string;
  /** The field that asks for it, named by the refusal. */
  param: string;
  /** The calls the request allows itself, where it says. */
  maxCalls?: number;
}

/** The request's billable features, and how to hold its calls to a bound (max_uses, max_tool_calls) on the body. */
export interface ServerToolUse {
  features: readonly BillableFeature[];
  limitCalls(maxCalls: number): void;
}

/** What of a spend request the gate reads (spend-gate.ts SpendRequest). */
interface ToolRequest {
  plan: PlanConfig | undefined;
  route: RouteProfileConfig;
  serverTools?: ServerToolUse;
}

/** Refuses a feature the plan does not allow on managed keys; holds the allowed ones to the plan's bound. */
export function admitServerTools(request: ToolRequest, prices: PriceBook, plans: ReadonlyMap<string, PlanConfig>): void {
  const use = request.serverTools;
  if (!use || use.features.length === 0) return;
  const allowed = request.plan?.managedServerTools;
  for (const feature of use.features) {
    if (allowed?.allow.includes(feature.name as never) && dearestCallNanoUsd(request.route, prices, feature.name) !== undefined) continue;
    throw new RouterError('server_tool_not_allowed', refusal(feature, request.plan, allowed !== undefined), {
      param: feature.param,
      upgradePlan: upgradePlanFor(plans.values(), request.plan, { kind: 'server_tool', tool: feature.name }),
    });
  }
  if (allowed) use.limitCalls(allowed.maxCallsPerRequest);
}

/** What the request's allowed server tools can cost at most: each at its bound, at the dearest price of the route. */
export function serverToolsEstimate(request: ToolRequest, prices: PriceBook): number {
  const bound = request.plan?.managedServerTools?.maxCallsPerRequest;
  if (!request.serverTools || bound === undefined) return 0;
  let most = 0;
  for (const feature of request.serverTools.features) {
    const calls = Math.min(feature.maxCalls ?? bound, bound);
    most += calls * (dearestCallNanoUsd(request.route, prices, feature.name) ?? 0);
  }
  return most;
}

/** The highest per-call price any provider of the route has for the tool, in nano-USD; undefined when none prices it. */
function dearestCallNanoUsd(route: RouteProfileConfig, prices: PriceBook, tool: string): number | undefined {
  let dearest: number | undefined;
  for (const { target } of routeTargets(route)) {
    const usd = prices.serverToolPriceOf(target.provider, tool);
    if (usd !== undefined) dearest = Math.max(dearest ?? 0, usdToNano(usd));
  }
  return dearest;
}

function refusal(feature: BillableFeature, plan: PlanConfig | undefined, planAllowsSome: boolean): string {
  const what = feature.name === 'premium_tier' ? `${feature.param} asks for a service tier billed above standard rates` : `${feature.param} asks for the ${feature.name} server tool, which the provider bills per call`;
  const where = planAllowsSome ? `the ${plan?.name ?? ''} plan does not allow it on the router's provider keys (or it has no price)` : `the ${plan?.name ?? ''} plan allows no server tools on the router's provider keys`;
  return `${what}, and ${where}. Remove it, add your own provider key on your account's provider-keys page (your own keys pass it through), or use a plan that allows it.`;
}
