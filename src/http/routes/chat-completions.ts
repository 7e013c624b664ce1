/** POST /v1/chat/completions: route by profile, answer as JSON or as a chat.completion.chunk stream. */
import type { H3Event } from 'h3';
import type { ChatRequest } from '../../formats/openai-chat.js';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import { abortOnDisconnect } from '../abort-on-disconnect.js';
import { authorizeRoute } from '../authorize-route.js';
import { applyOutputTokenCap } from '../output-token-cap.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { ChatStreamEncoder } from '../encoders/chat-stream-encoder.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { servedUsage } from '../encoders/served-usage.js';
import { fusionPlanOf, requireFusionAccess, toolFusionOf } from '../fusion/fusion-plan.js';
import { serveFusionChat } from '../fusion/serve-fusion-chat.js';
import { setRoutingHeaders } from './routing-headers.js';
import { responseCost } from '../../usage/response-cost.js';
import { attemptsTraced, inSpendGateSpan } from '../request-spans.js';

export function createChatCompletionsRoute(deps: RouterDeps) {
  return async (event: H3Event, ctx: RouterRequestContext): Promise<unknown> => {
    const route = authorizeRoute(ctx, deps.plans);
    applyOutputTokenCap(ctx.body!, ctx.plan, 'chat');
    const fusion = fusionPlanOf(route, ctx.body!, deps.routes);
    if (fusion?.kind === 'profile') await requireFusionAccess(deps, ctx.caller!.accountId, fusion.route);
    ctx.spendReservation = await inSpendGateSpan(ctx, () => deps.spend.reserve({ accountId: ctx.caller!.accountId, plan: ctx.plan, route, body: ctx.body!, ...toolFusionOf(fusion) }));
    const chat = ctx.body as ChatRequest;
    const call = { route, accountId: ctx.caller!.accountId, signal: abortOnDisconnect(event, deps.drain.deadline), ...attemptsTraced(ctx) };
    if (fusion) return serveFusionChat(event, ctx, deps, fusion, call, chat);
    if (chat.stream) {
      const encoder = new ChatStreamEncoder(streamTarget(event.node.res, ctx, servedUsage(ctx, deps), deps), { model: route.id, includeUsage: chat.stream_options?.include_usage === true });
      await serveClientStream(encoder, () => deps.engine.streamChat(call, chat), { stopped: deps.drain.deadline });
      return undefined;
    }
    const { value, meta } = await deps.engine.completeChat(call, chat);
    ctx.served = meta;
    ctx.usage = tokenUsageFromChat(value.usage);
    ctx.finishReason = value.choices[0]?.finish_reason ?? undefined;
    if (value.usage && deps.config.server.ledger.costInResponses) Object.assign(value.usage, responseCost(deps.usage.prices, meta, ctx.usage));
    ctx.firstByteAt = deps.clock.now();
    setRoutingHeaders(event.node.res, meta);
    value.model = route.id;
    return value;
  };
}
