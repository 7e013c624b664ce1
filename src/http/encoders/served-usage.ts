/**
 * A single model's stream usage: the served call's tokens are the request's, and the client is shown its
 * upstream's usage with the cost the ledger will record (unless the operator turned costs off; 0 for an
 * insured answer, usage/zero-completion-insurance.ts).
 */
import type { TokenUsage } from '../../core/token-usage.js';
import type { PriceBook } from '../../usage/model-prices.js';
import { responseCost } from '../../usage/response-cost.js';
import { shownCost, type AnswerEnding } from '../../usage/zero-completion-insurance.js';
import type { StreamRecord, UsageReport } from './client-stream-encoder.js';

export class ServedUsage implements UsageReport {
  readonly summarizes = false;

  constructor(
    private readonly target: StreamRecord,
    private readonly prices: PriceBook,
    /** The operator's `ledger.costInResponses`. */
    private readonly costInResponses: boolean,
  ) {}

  record(tokens: TokenUsage | null): void {
    this.target.usage = tokens;
  }

  show<Usage extends object>(reported: Usage | null | undefined): Usage | null | undefined {
    const { served, usage } = this.target;
    if (reported !== null && typeof reported === 'object' && this.costInResponses) Object.assign(reported, shownCost(responseCost(this.prices, served, usage ?? null), endingOf(this.target)));
    return reported;
  }

  router(): undefined {
    return undefined;
  }
}

/** How the answer ended so far (streams are completions only): encoders record the finish before they show the usage (it comes last). */
function endingOf(record: StreamRecord): AnswerEnding {
  return { served: record.served !== undefined, generates: true, completionTokens: record.usage?.completion, finishReason: record.finishReason, errorCode: record.errorCode };
}

export function servedUsage(record: StreamRecord, deps: { config: { server: { ledger: { costInResponses: boolean } } }; usage: { prices: PriceBook } }): ServedUsage {
  return new ServedUsage(record, deps.usage.prices, deps.config.server.ledger.costInResponses);
}
