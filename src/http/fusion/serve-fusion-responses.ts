/**
 * /v1/responses for a fusion plan, served through chat (the pipeline's shape) and translated back: one
 * Response object, or the synthesized event stream through response.completed, whose response carries
 * the summed usage and the `router` object. Keep-alives and failures as for chat.
 */
import type { H3Event } from 'h3';
import type { ResponsesRequest } from '../../formats/openai-responses.js';
import { responseContext, synthesizeResponsesStream } from '../../routing/responses-attempts.js';
import { chatCompletionToResponse } from '../../translators/responses/chat-to-responses.js';
import { responsesRequestToChat } from '../../translators/responses/responses-request-to-chat.js';
import type { RouterDeps } from '../router-deps.js';
import type { ServingRecord } from '../request-context.js';
import { setRoutingHeaders } from '../routes/routing-headers.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { ResponsesStreamEncoder, responsesUsage } from '../encoders/responses-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { FusionUsage, routerExtension, totalUsage, withFusionCost } from './fusion-report.js';
import { keepAliveMsOf, type FusionPlan } from './fusion-plan.js';
import { completePlan, startFusion, streamPlan, type FusionCallContext } from './run-fusion-plan.js';

export async function serveFusionResponses(
  event: H3Event,
  serving: ServingRecord,
  deps: RouterDeps,
  plan: FusionPlan,
  call: FusionCallContext,
  request: ResponsesRequest,
): Promise<unknown> {
  const responsesCall = { request, model: plan.route.id, signal: call.signal };
  const chat = responsesRequestToChat({ ...request, stream: request.stream === true });
  const fusion = startFusion(serving, call);
  if (!request.stream) {
    const { trace } = fusion;
    const { value, meta } = await completePlan(deps, plan, call, chat, serving, fusion);
    serving.firstByteAt = deps.clock.now();
    setRoutingHeaders(event.node.res, meta);
    const response = chatCompletionToResponse(value, responseContext(deps, responsesCall)) as unknown as Record<string, unknown>;
    return { ...response, usage: withFusionCost(responsesUsage(totalUsage(trace)), trace, deps.usage.prices, deps.config.server.ledger.costInResponses), router: routerExtension(trace, deps.usage.prices) };
  }
  const report = new FusionUsage(serving, fusion, deps.usage.prices, deps.config.server.ledger.costInResponses);
  const encoder = new ResponsesStreamEncoder(streamTarget(event.node.res, serving, report, deps));
  await serveClientStream(
    encoder,
    async () => {
      const { value, meta } = await streamPlan(deps, plan, call, chat, serving, fusion);
      return { value: synthesizeResponsesStream(deps, responsesCall, value), meta };
    },
    { stopped: deps.drain.deadline, keepAliveMs: keepAliveMsOf(plan) },
  );
  return undefined;
}
