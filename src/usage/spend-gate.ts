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
 *
 * Budgets of the request's workspace, member and key (stores/budget-store.ts) are held by the same gate,
 * with the same estimate and the same reservation id, in one atomic step with the managed cap
 * (LedgerStore.reserveBudgets): a request is admitted only when every limit that applies had room, and
 * its ledger record settles them all. A budget that leaves out the organization's own keys applies only to
 * managed requests; one that includes them gives BYOK requests an estimate and an output cap as well.
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
import { budgetPeriodEnd, budgetPeriodKey } from '../stores/budget-periods.js';
import type { AppliedBudget, BudgetHold } from '../stores/budget-store.js';

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
  /** Budgets of the request's workspace, member and key (account-controls.ts); absent or empty: none. */
  budgets?: readonly AppliedBudget[];
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

  /**
   * Holds the request's estimate against the managed cap and every budget that applies, or throws
   * spend_cap_reached / budget_exceeded; undefined when nothing applies (BYOK without budgets).
   */
  async reserve(request: SpendRequest): Promise<SpendReservation | undefined> {
    const capUsd = request.plan?.managedSpendCapUsd;
    const budgets = request.budgets ?? [];
    if (capUsd === undefined && budgets.length === 0) return undefined;
    const managed = await this.deps.usesManagedAccess(request.accountId);
    const capped = capUsd !== undefined && managed;
    const applied = budgets.filter((budget) => managed || budget.record.includeByok);
    if (!capped && applied.length === 0) return undefined;
    if (this.deps.ledgerBehind()) {
      throw new RouterError('store_unavailable', 'The router cannot record usage right now, so it cannot meter managed provider access or budgets. Retry shortly.', {
        headers: { 'retry-after': '5' },
      });
    }
    if (capped) admitServerTools(request, this.deps.prices, this.deps.plans);
    if (outputCap(request.body) === undefined) {
      // Responses bodies carry `input`, chat bodies `messages` (both checked by the body stage).
      request.body['input' in request.body ? 'max_output_tokens' : 'max_completion_tokens'] = this.defaultOutputTokens(request.route);
    }
    const now = this.deps.clock.now();
    const reservation = { id: `spr_${randomBytes(12).toString('hex')}`, estimateNanoUsd: this.estimate(request) };
    const expiresAt = new Date(now + this.deps.reservationTtlMs).toISOString();
    const period = quotaPeriod(now);
    if (capped) {
      // Server tool calls that alone could cost more than the whole cap are refused however little is spent:
      // the cap may be overshot by one request's estimate, and that estimate would be mostly calls.
      if (serverToolsEstimate(request, this.deps.prices) > usdToNano(capUsd)) throw this.capReached(request, capUsd, period.resetsAt);
      if (applied.length === 0) {
        const decision = await this.deps.store.reserveSpend({
          id: reservation.id,
          accountId: request.accountId,
          period: period.key,
          nanoUsd: reservation.estimateNanoUsd,
          capNanoUsd: usdToNano(capUsd),
          expiresAt,
          now: new Date(now).toISOString(),
        });
        if (!decision.reserved) throw this.capReached(request, capUsd, period.resetsAt);
        return reservation;
      }
    }
    const holds = applied.map((budget): BudgetHold => ({
      scope: budget.record.scope,
      scopeId: budget.record.scopeId,
      periodKey: budgetPeriodKey(budget.record.period, now),
      limitNanoUsd: budget.record.limitNanoUsd,
      includeByok: budget.record.includeByok,
    }));
    const decision = await this.deps.store.reserveBudgets({
      id: reservation.id,
      accountId: request.accountId,
      ...(capped ? { managedCap: { period: period.key, capNanoUsd: usdToNano(capUsd) } } : {}),
      holds,
      nanoUsd: reservation.estimateNanoUsd,
      expiresAt,
      now: new Date(now).toISOString(),
    });
    if (decision.reserved) return reservation;
    if (decision.refusedBy === 'managed_cap') throw this.capReached(request, capUsd!, period.resetsAt);
    const refusedBy = decision.refusedBy;
    const budget = applied.find((candidate) => candidate.record.scope === refusedBy.scope && candidate.record.scopeId === refusedBy.scopeId)!;
    throw budgetExceeded(budget, decision.spentNanoUsd + decision.reservedNanoUsd, now);
  }

  private capReached(request: SpendRequest, capUsd: number, resetsAt: string): RouterError {
    return new RouterError(
      'spend_cap_reached',
      `This account has used its managed provider access for this month (the ${request.plan?.name ?? ''} plan's cap is USD ${formatNanoUsd(usdToNano(capUsd))}). It resets at ${resetsAt}. Requests with your own provider keys keep working: add one on your account page, or upgrade.`,
      {
        details: { capUsd: formatNanoUsd(usdToNano(capUsd)), resetsAt },
        upgradePlan: upgradePlanFor(this.deps.plans.values(), request.plan, { kind: 'more_managed_spend' }),
      },
    );
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

const PERIOD_WORDS = { day: 'per day', week: 'per week', month: 'per month', total: 'in total' } as const;

/** The refusal names the budget (scope, name, period) and where an admin changes it; accountUrl links there. */
function budgetExceeded(budget: AppliedBudget, committedNanoUsd: number, nowMs: number): RouterError {
  const { record } = budget;
  const resetsAt = budgetPeriodEnd(record.period, nowMs);
  const limitUsd = formatNanoUsd(record.limitNanoUsd);
  return new RouterError(
    'budget_exceeded',
    `The budget of ${budget.label} (USD ${limitUsd} ${PERIOD_WORDS[record.period]}) is used up${resetsAt ? `; it resets at ${resetsAt}` : ''}. An organization admin can change it on the Guardrails page (/app/guardrails).`,
    {
      details: {
        budget: { scope: record.scope, id: record.scopeId, name: budget.label, period: record.period, limitUsd, spentUsd: formatNanoUsd(committedNanoUsd) },
        ...(resetsAt ? { resetsAt } : {}),
      },
    },
  );
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
