/**
 * Runs a request's fusion plan through the routing engine and records it on the request's context
 * (the trace for the ledger, the writer's routing for headers and the outcome), for both APIs.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../../formats/openai-chat.js';
import type { CommittedStream } from '../../routing/chat-attempts.js';
import { FusionTrace, type FusionResult } from '../../routing/fusion/index.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { completionAsStream } from './completion-chunks.js';
import type { FusionPlan } from './fusion-plan.js';

export interface FusionCallContext {
  accountId: string;
  signal: AbortSignal;
}

export function startTrace(ctx: RouterRequestContext): FusionTrace {
  const trace = new FusionTrace();
  if (ctx.trace) trace.span = ctx.trace.server;
  ctx.fusion = { trace };
  return trace;
}

export async function completePlan(deps: RouterDeps, plan: FusionPlan, call: FusionCallContext, chat: ChatRequest, ctx: RouterRequestContext): Promise<FusionResult<ChatCompletion>> {
  const trace = startTrace(ctx);
  const result =
    plan.kind === 'profile'
      ? await deps.engine.completeFusion({ ...call, route: plan.route }, { ...chat, stream: false }, trace)
      : await deps.engine.completeWithFusionTool({ ...call, route: plan.route, fusionRoute: plan.fusionRoute }, chat, trace);
  settle(ctx, result);
  return result;
}

/** A fusion profile streams its writer; the server tool's final turn is known whole and streamed from it. */
export async function streamPlan(
  deps: RouterDeps,
  plan: FusionPlan,
  call: FusionCallContext,
  chat: ChatRequest,
  ctx: RouterRequestContext,
): Promise<FusionResult<CommittedStream<ChatCompletionChunk>>> {
  const trace = startTrace(ctx);
  if (plan.kind === 'profile') {
    const result = await deps.engine.streamFusion({ ...call, route: plan.route }, { ...chat, stream: true }, trace);
    settle(ctx, result);
    return result;
  }
  const result = await deps.engine.completeWithFusionTool({ ...call, route: plan.route, fusionRoute: plan.fusionRoute }, chat, trace);
  settle(ctx, result);
  return { ...result, value: completionAsStream(result.value) };
}

function settle(ctx: RouterRequestContext, result: FusionResult<unknown>): void {
  ctx.served = result.meta;
  ctx.fusion!.main = result.main;
  ctx.usage = result.main.usage;
}
