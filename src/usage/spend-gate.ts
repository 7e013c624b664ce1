/**
 * The managed-access spend cap. Before a request that will use the operator's provider keys calls an
 * upstream, the gate holds an estimate of its most expensive outcome in the store, atomically for all
 * instances: admitted while the account's metered spend this month plus the estimates held for requests
 * in flight is below the plan's `managedSpendCapUsd`. The request's ledger record settles it to the real
 * cost in the same transaction that records the cost. So the cap is overshot by less than one request's
 * estimate, however many requests and instances run at once. BYOK requests never pass through here.
 *
 * The estimate: prompt tokens at most the request body's UTF-8 bytes (a byte-level tokenizer never makes
 * more tokens than bytes), output tokens at most the request's own cap (max_tokens,
 * max_completion_tokens, max_output_tokens; times `n`), else the largest `defaultMaxTokens` of the
 * route's providers, at the dearest price among the route's models. A managed request that names no
 * output cap is sent with that default as its cap: without it, a host that applies no cap of its own
 * could answer past the estimate, and the bound would not hold. Server tools are refused unless the
 * plan allows them, and those it allows add their calls at the dearest per-call price (server-tool-gate.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ModelPrice, PlanConfig, ProviderConfig, RouteProfileConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { RouterError } from '../core/errors.js';
import { quotaPeriod } from '../core/quota-period.js';
import type { LedgerStore } from '../stores/ledger-store.js';
import { maximumCostNanoUsd, type PriceBook } from './model-prices.js';
import { formatNanoUsd, usdToNano } from './nano-usd.js';
import { fusionCallCount, routeTargets } from '../config/route-targets.js';
import { admitServerTools, serverToolsEstimate, type ServerToolUse } from './server-tool-gate.js';
import { upgradePlanFor } from '../config/upgrade-plan.js';

export interface SpendReservation {
  id: string;
  estimateNanoUsd: number;
}

export interface SpendRequest {
  accountId: string;
  plan: PlanConfig | undefined;
  route: RouteProfileConfig;
  /** The request body; a managed request without an output cap gets the one its estimate assumes. */
  body: Record<string, unknown>;
  /** The fusion profile the request's `router:fusion` server tool may run, when it offers the tool. */
  toolFusion?: RouteProfileConfig;
  /** Server tools and tiers the request asks for; absent: none. */
  serverTools?: ServerToolUse;
}

export interface SpendGateDeps {
  store: LedgerStore;
  /** True while the ledger cannot keep up: managed requests are refused rather than left unmetered. */
  ledgerBehind(): boolean;
  prices: PriceBook;
  providers: ReadonlyMap<string, ProviderConfig>;
  /** Will this account's requests use the operator's keys (no BYOK keys, managed access active for its plan)? */
  usesManagedAccess(accountId: string): Promise<boolean>;
  clock: Clock;
  /** How long a reservation outlives its request at most (the request timeout, plus time to flush). */
  reservationTtlMs: number;
  /** Every plan: which one the spend cap's upgradeUrl offers (one with a larger cap), if any. */
  plans: ReadonlyMap<string, PlanConfig>;
}

export class SpendGate {
  constructor(private readonly deps: SpendGateDeps) {}

  /** Holds the request's estimate, or throws spend_cap_reached; undefined for requests that are not managed. */
  async reserve(request: SpendRequest): Promise<SpendReservation | undefined> {
    const capUsd = request.plan?.managedSpendCapUsd;
    if (capUsd === undefined || !(await this.deps.usesManagedAccess(request.accountId))) return undefined;
    if (this.deps.ledgerBehind()) {
      throw new RouterError('store_unavailable', 'The router cannot record usage right now, so it cannot meter managed provider access. Retry shortly.', {
        headers: { 'retry-after': '5' },
      });
    }
    admitServerTools(request, this.deps.prices, this.deps.plans);
    if (outputCap(request.body) === undefined) {
      // Responses bodies carry `input`, chat bodies `messages` (both checked by the body stage).
      request.body['input' in request.body ? 'max_output_tokens' : 'max_completion_tokens'] = this.defaultOutputTokens(request.route);
    }
    const now = this.deps.clock.now();
    const period = quotaPeriod(now);
    const capReached = (): RouterError =>
      new RouterError(
        'spend_cap_reached',
        `This account has used its managed provider access for this month (the ${request.plan?.name ?? ''} plan's cap is USD ${formatNanoUsd(usdToNano(capUsd))}). It resets at ${period.resetsAt}. Requests with your own provider keys keep working: add one on your account page, or upgrade.`,
        {
          details: { capUsd: formatNanoUsd(usdToNano(capUsd)), resetsAt: period.resetsAt },
          upgradePlan: upgradePlanFor(this.deps.plans.values(), request.plan, { kind: 'more_managed_spend' }),
        },
      );
    const reservation = { id: `spr_${randomBytes(12).toString('hex')}`, estimateNanoUsd: this.estimate(request) };
    // Server tool calls that alone could cost more than the whole cap are refused however little is spent:
    // the cap may be overshot by one request's estimate, and that estimate would be mostly calls.
    if (serverToolsEstimate(request, this.deps.prices) > usdToNano(capUsd)) throw capReached();
    const decision = await this.deps.store.reserveSpend({
      id: reservation.id,
      accountId: request.accountId,
      period: period.key,
      nanoUsd: reservation.estimateNanoUsd,
      capNanoUsd: usdToNano(capUsd),
      expiresAt: new Date(now + this.deps.reservationTtlMs).toISOString(),
      now: new Date(now).toISOString(),
    });
    if (!decision.reserved) throw capReached();
    return reservation;
  }

  /**
   * The most the request can cost on any of its route's candidates. A fusion request (a fusion profile,
   * or the router:fusion tool) is estimated for all its calls at once, each at the dearest price and with
   * the prompt grown by every panel answer, so no partial panel runs on an account that cannot afford it.
   */
  estimate(request: SpendRequest): number {
    const prices: ModelPrice[] = [];
    for (const { target } of [...routeTargets(request.route), ...(request.toolFusion ? routeTargets(request.toolFusion) : [])]) {
      const price = this.deps.prices.priceOf(target.provider, target.model);
      if (price) prices.push(price);
    }
    const { calls, addedPromptTokens } = fusionShape(request);
    const promptTokens = Buffer.byteLength(JSON.stringify(request.body), 'utf8') + addedPromptTokens;
    const outputTokens = (outputCap(request.body) ?? this.defaultOutputTokens(request.route)) * choices(request.body);
    return calls * maximumCostNanoUsd(prices, promptTokens, outputTokens) + serverToolsEstimate(request, this.deps.prices);
  }

  /** The largest default output cap among the route's providers. */
  private defaultOutputTokens(route: RouteProfileConfig): number {
    let tokens = 0;
    for (const { target } of routeTargets(route)) tokens = Math.max(tokens, this.deps.providers.get(target.provider)?.defaultMaxTokens ?? 0);
    return tokens;
  }
}

/** Instructions of the judge and writer, generously: they are a few hundred bytes. */
const FUSION_INSTRUCTION_TOKENS = 4096;

/** Calls a request may make, and what the panel's answers add to a later call's prompt. */
function fusionShape(request: SpendRequest): { calls: number; addedPromptTokens: number } {
  const own = request.route.fusion;
  const tool = request.toolFusion?.fusion;
  let calls = own ? fusionCallCount(own) : 1;
  let added = own ? own.panel.length * own.maxPanelOutputTokens + FUSION_INSTRUCTION_TOKENS : 0;
  if (tool) {
    // Each round: a model turn and a fusion run; then the model's last turn, with every result in its prompt.
    calls += tool.maxToolRounds * (fusionCallCount(tool) + 1);
    added += tool.maxToolRounds * (tool.panel.length * tool.maxPanelOutputTokens + FUSION_INSTRUCTION_TOKENS);
  }
  return { calls, addedPromptTokens: added };
}

function outputCap(body: Readonly<Record<string, unknown>>): number | undefined {
  for (const field of ['max_completion_tokens', 'max_tokens', 'max_output_tokens']) {
    const value = body[field];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  return undefined;
}

function choices(body: Readonly<Record<string, unknown>>): number {
  const n = body.n;
  return typeof n === 'number' && Number.isInteger(n) && n > 1 ? n : 1;
}
