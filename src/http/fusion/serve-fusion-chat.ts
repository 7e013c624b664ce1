/**
 * /v1/chat/completions for a fusion plan: one JSON body, or the writer's answer as a chat stream with
 * the summed usage and the `router` object on its last chunk, then [DONE]. Until the writer commits,
 * the stream carries keep-alive comments only; a failure before that is the usual error response, or
 * an in-band error event once a keep-alive has opened the stream.
 */
import type { H3Event } from 'h3';
import type { ChatRequest } from '../../formats/openai-chat.js';
import type { RouterDeps } from '../router-deps.js';
import type { ServingRecord } from '../request-context.js';
import { setRoutingHeaders } from '../routes/routing-headers.js';
import { ChatStreamEncoder, chatUsage } from '../encoders/chat-stream-encoder.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { FusionUsage, routerExtension, totalUsage, withFusionCost } from './fusion-report.js';
import { keepAliveMsOf, type FusionPlan } from './fusion-plan.js';
import { completePlan, startFusion, streamPlan, type FusionCallContext } from './run-fusion-plan.js';

export async function serveFusionChat(event: H3Event, serving: ServingRecord, deps: RouterDeps, plan: FusionPlan, call: FusionCallContext, chat: ChatRequest): Promise<unknown> {
  const model = plan.route.id;
  const fusion = startFusion(serving, call);
  if (!chat.stream) {
    const { trace } = fusion;
    const { value, meta } = await completePlan(deps, plan, call, chat, serving, fusion);
    serving.firstByteAt = deps.clock.now();
    setRoutingHeaders(event.node.res, meta);
    return { ...value, model, usage: withFusionCost(chatUsage(totalUsage(trace)), trace, deps.usage.prices, deps.config.server.ledger.costInResponses), router: routerExtension(trace, deps.usage.prices) };
  }
  const report = new FusionUsage(serving, fusion, deps.usage.prices, deps.config.server.ledger.costInResponses);
  const encoder = new ChatStreamEncoder(streamTarget(event.node.res, serving, report, deps), { model, includeUsage: chat.stream_options?.include_usage === true });
  await serveClientStream(encoder, () => streamPlan(deps, plan, call, chat, serving, fusion), { stopped: deps.drain.deadline, keepAliveMs: keepAliveMsOf(plan) });
  return undefined;
}
