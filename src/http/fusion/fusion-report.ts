/**
 * What a fusion request reports to its client: `usage` summed over every upstream call, and the `router`
 * extension object listing each call (provider, model, status, tokens, latency, cost, whether its output
 * was used). OpenAI's and Anthropic's SDKs keep unknown fields, so all parse unchanged.
 */
import type { TokenUsage } from '../../core/token-usage.js';
import type { FusionCall, FusionTrace } from '../../routing/fusion/index.js';
import { costNanoUsd, type PriceBook } from '../../usage/model-prices.js';
import { callsCost } from '../../usage/response-cost.js';
import type { StreamRecord, UsageReport } from '../encoders/client-stream-encoder.js';

export interface RouterExtension {
  fusion: {
    /** `used`: the writer had the judge's analysis; `unavailable`: no judge answered, the writer wrote without it. */
    analysis: FusionTrace['analysis'];
    /** router:fusion server-tool runs in this request (0 on a fusion profile). */
    tool_runs: number;
  };
  calls: RouterCallReport[];
}

export interface RouterCallReport {
  call: string;
  role: string;
  provider: string | null;
  model: string | null;
  status: string;
  error: string | null;
  used: boolean;
  latency_ms: number;
  retries: number;
  /** null: the upstream reported none. */
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
  /** USD from the model's price; null when the usage or the price is unknown. */
  cost_usd: number | null;
}

export function routerExtension(trace: FusionTrace, prices: PriceBook): RouterExtension {
  return {
    fusion: { analysis: trace.analysis, tool_runs: trace.toolRuns },
    calls: trace.calls.map((call) => {
      const price = call.provider && call.model ? prices.priceOf(call.provider, call.model) : undefined;
      const cost = call.usage === null ? null : call.provider === null ? 0 : price === undefined ? null : costNanoUsd(price, call.usage);
      return {
        call: call.label,
        role: call.role,
        provider: call.provider,
        model: call.model,
        status: call.status,
        error: call.error,
        used: call.used,
        latency_ms: call.latencyMs,
        retries: call.retryCount,
        usage: call.usage && { prompt_tokens: call.usage.prompt, completion_tokens: call.usage.completion, total_tokens: call.usage.prompt + call.usage.completion },
        cost_usd: cost === null ? null : cost / 1e9,
      };
    }),
  };
}

/**
 * `usage.cost` and `usage.cost_details` of the whole request, every call's added up as the ledger records
 * each, set on the answer's usage like a single call's (unless the operator turned costs off).
 */
export function withFusionCost<T extends object>(usage: T, trace: FusionTrace, prices: PriceBook, costInResponses: boolean): T {
  const cost = costInResponses ? callsCost(prices, trace.calls) : undefined;
  return cost ? Object.assign(usage, cost) : usage;
}

/** Every call's tokens added up (a call whose upstream reported none adds nothing it could prove). */
export function totalUsage(trace: FusionTrace): TokenUsage {
  const total: TokenUsage = { prompt: 0, completion: 0, reasoning: 0, cached: 0 };
  for (const { usage } of trace.calls) {
    if (!usage) continue;
    total.prompt += usage.prompt;
    total.completion += usage.completion;
    total.reasoning += usage.reasoning;
    total.cached += usage.cached;
  }
  return total;
}

/** A fusion request's record: every upstream call, and the one whose answer the client got (`main`, once the writer commits). */
export interface FusionRecord {
  trace: FusionTrace;
  main?: FusionCall;
}

/**
 * A fusion stream's usage: the writer's own tokens are its ledger record (`main`) and the request's;
 * the client is shown every call's, summed, with the `router` object.
 */
export class FusionUsage implements UsageReport {
  readonly summarizes = true;

  constructor(
    private readonly target: StreamRecord,
    private readonly fusion: FusionRecord,
    private readonly prices: PriceBook,
    private readonly costInResponses: boolean,
    /**
     * The Messages stream: its usage has no reasoning split, so the writer's tokens are taken from its
     * chat chunks instead (`recordWriterTokens`), and what the encoder reads from the events is ignored.
     */
    private readonly tokensFromChatChunks = false,
  ) {}

  record(tokens: TokenUsage | null): void {
    if (!this.tokensFromChatChunks) this.recordWriterTokens(tokens);
  }

  recordWriterTokens(tokens: TokenUsage | null): void {
    this.target.usage = tokens;
    if (this.fusion.main) this.fusion.main.usage = tokens;
  }

  show<Usage extends object>(_reported: unknown, summed: (total: TokenUsage) => Usage): Usage {
    return withFusionCost(summed(totalUsage(this.fusion.trace)), this.fusion.trace, this.prices, this.costInResponses);
  }

  router(): RouterExtension {
    return routerExtension(this.fusion.trace, this.prices);
  }
}
