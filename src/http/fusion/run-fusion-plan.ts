/**
 * Runs a request's fusion plan through the routing engine and records it on the request's serving record
 * (the trace for the ledger, the writer's routing for headers and the outcome), for every client API.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../../formats/openai-chat.js';
import type { CommittedStream } from '../../routing/chat-attempts.js';
import { FusionTrace, type FusionResult } from '../../routing/fusion/index.js';
import type { RouterDeps } from '../router-deps.js';
import type { ServingRecord } from '../request-context.js';
import type { SpanScope } from '../../tracing/tracing.js';
import { completionAsStream } from './completion-chunks.js';
import type { FusionRecord } from './fusion-report.js';
import type { FusionPlan } from './fusion-plan.js';

export interface FusionCallContext {
  accountId: string;
  signal: AbortSignal;
  /** The request's server span (tracing on): the plan's calls go under it. */
  trace?: SpanScope | undefined;
}

/** The request's fusion record, its trace under the request's span: started before any call of the plan. */
export function startFusion(serving: ServingRecord, call: FusionCallContext): FusionRecord {
  const trace = new FusionTrace();
  if (call.trace) trace.span = call.trace;
  const fusion: FusionRecord = { trace };
  serving.fusion = fusion;
  return fusion;
}

export async function completePlan(
  deps: RouterDeps,
  plan: FusionPlan,
  call: FusionCallContext,
  chat: ChatRequest,
  serving: ServingRecord,
  fusion: FusionRecord,
): Promise<FusionResult<ChatCompletion>> {
  const result =
    plan.kind === 'profile'
      ? await deps.engine.completeFusion({ ...call, route: plan.route }, { ...chat, stream: false }, fusion.trace)
      : await deps.engine.completeWithFusionTool({ ...call, route: plan.route, fusionRoute: plan.fusionRoute }, chat, fusion.trace);
  settle(serving, fusion, result);
  return result;
}

/** A fusion profile streams its writer; the server tool's final turn is known whole and streamed from it. */
export async function streamPlan(
  deps: RouterDeps,
  plan: FusionPlan,
  call: FusionCallContext,
  chat: ChatRequest,
  serving: ServingRecord,
  fusion: FusionRecord,
): Promise<FusionResult<CommittedStream<ChatCompletionChunk>>> {
  if (plan.kind === 'profile') {
    const result = await deps.engine.streamFusion({ ...call, route: plan.route }, { ...chat, stream: true }, fusion.trace);
    settle(serving, fusion, result);
    return result;
  }
  const result = await deps.engine.completeWithFusionTool({ ...call, route: plan.route, fusionRoute: plan.fusionRoute }, chat, fusion.trace);
  settle(serving, fusion, result);
  return { ...result, value: completionAsStream(result.value) };
}

function settle(serving: ServingRecord, fusion: FusionRecord, result: FusionResult<unknown>): void {
  serving.served = result.meta;
  fusion.main = result.main;
  serving.usage = result.main.usage;
}
