/**
 * What a fusion run did, call by call: the server reports it to the client (the `router` extension
 * object), the usage ledger (one record per call) and the headers (retries summed). The run appends
 * to it as calls finish, so a run that ends early (the client left, too few answers) still leaves
 * what each call did up to then.
 */
import type { SpanScope } from '../../tracing/tracing.js';
import type { TokenUsage } from '../../core/token-usage.js';
import type { AttemptSummary, CredentialSource } from '../failover.js';

export type FusionRole = 'panel' | 'judge' | 'writer' | 'model';

/** `ok`: answered and usable; the others say why a call gave nothing the run could use. */
export type FusionCallStatus = 'ok' | 'failed' | 'timeout' | 'empty' | 'invalid' | 'aborted';

export interface FusionCall {
  /** Unique within the request: `panel:1`, `judge`, `writer`, `tool:1:panel:2`, `model:1`… (the ledger's `call`). */
  label: string;
  role: FusionRole;
  /** The candidate that answered (or the last one tried); null when none was tried. */
  provider: string | null;
  model: string | null;
  status: FusionCallStatus;
  /** One word: why the call was not usable (an error code); null when it was. */
  error: string | null;
  /** Tokens the upstream reported; null when it reported none, zeros when nothing answered. */
  usage: TokenUsage | null;
  latencyMs: number;
  retryCount: number;
  attempts: readonly AttemptSummary[];
  credentialSource: CredentialSource | null;
  /** Its output went into the final answer (a surviving panel answer, the analysis, the writer). */
  used: boolean;
}

export const NO_TOKENS: TokenUsage = { prompt: 0, completion: 0, reasoning: 0, cached: 0 };

export class FusionTrace {
  readonly calls: FusionCall[] = [];
  /** Whether the writer had the judge's analysis; `unavailable` when no judge answered. */
  analysis: 'used' | 'unavailable' | 'not_requested' = 'not_requested';
  /** Server-tool runs (router:fusion): how many fusion runs the model asked for. */
  toolRuns = 0;
  /** With tracing on, the span each call's own span goes under (the request's server span). */
  span?: SpanScope;

  record(call: FusionCall): FusionCall {
    this.calls.push(call);
    return call;
  }

  /** Retries over every call, for X-Router-Retry-Count. */
  get retryCount(): number {
    return this.calls.reduce((sum, call) => sum + call.retryCount, 0);
  }
}

/** Sum of known usages; null only when a call that answered reported none. */
export function sumUsage(usages: readonly (TokenUsage | null)[]): TokenUsage | null {
  const total = { ...NO_TOKENS };
  for (const usage of usages) {
    if (usage === null) return null;
    total.prompt += usage.prompt;
    total.completion += usage.completion;
    total.reasoning += usage.reasoning;
    total.cached += usage.cached;
  }
  return total;
}
