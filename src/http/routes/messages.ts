/** POST /v1/messages: Anthropic's Messages API over any upstream, as one Message or as Anthropic's event stream. */
import type { H3Event } from 'h3';
import type { PlanConfig } from '../../config/types.js';
import type { MessagesRequest } from '../../formats/anthropic-messages.js';
import { splitHeaderList } from '../../core/split-header-list.js';
import { tokenUsageFromMessages } from '../../translators/messages/messages-token-usage.js';
import { responseCost } from '../../usage/response-cost.js';
import { abortOnDisconnect } from '../abort-on-disconnect.js';
import { authorizeRoute } from '../authorize-route.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { MessagesStreamEncoder } from '../encoders/messages-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { servedUsage } from '../encoders/served-usage.js';
import { fusionPlanOf, requireFusionAccess, toolFusionOf } from '../fusion/fusion-plan.js';
import { serveFusionMessages } from '../fusion/serve-fusion-messages.js';
import { setRoutingHeaders } from './routing-headers.js';
import { attemptsTraced, inSpendGateSpan } from '../request-spans.js';

export function createMessagesRoute(deps: RouterDeps) {
  return async (event: H3Event, ctx: RouterRequestContext): Promise<unknown> => {
    const route = authorizeRoute(ctx, deps.plans);
    const request = ctx.body as unknown as MessagesRequest;
    clampOutputTokens(request, ctx.plan);
    const fusion = fusionPlanOf(route, ctx.body!, deps.routes);
    if (fusion?.kind === 'profile') await requireFusionAccess(deps, ctx.caller!.accountId, fusion.route);
    ctx.spendReservation = await inSpendGateSpan(ctx, () => deps.spend.reserve({ accountId: ctx.caller!.accountId, plan: ctx.plan, route, body: ctx.body!, ...toolFusionOf(fusion) }));
    const call = { route, accountId: ctx.caller!.accountId, signal: abortOnDisconnect(event, deps.drain.deadline), ...attemptsTraced(ctx) };
    const { 'anthropic-version': version, 'anthropic-beta': beta } = event.node.req.headers;
    const messages = { request, model: request.model, client: { version: typeof version === 'string' ? version : undefined, betas: splitHeaderList(beta) } };
    if (fusion) return serveFusionMessages(event, ctx, deps, fusion, call, messages);
    if (request.stream === true) {
      const encoder = new MessagesStreamEncoder(streamTarget(event.node.res, ctx, servedUsage(ctx, deps), deps));
      await serveClientStream(encoder, () => deps.engine.streamMessages(call, messages), { stopped: deps.drain.deadline });
      return undefined;
    }
    const { value, meta } = await deps.engine.completeMessages(call, messages);
    ctx.served = meta;
    ctx.usage = tokenUsageFromMessages(value.usage);
    ctx.finishReason = value.stop_reason ?? undefined;
    // Anthropic's usage has no cost field: the same usage.cost and cost_details as chat, which its SDKs keep.
    if (value.usage && deps.config.server.ledger.costInResponses) Object.assign(value.usage, responseCost(deps.usage.prices, meta, ctx.usage));
    ctx.firstByteAt = deps.clock.now();
    setRoutingHeaders(event.node.res, meta);
    return value;
  };
}

/**
 * `max_tokens` is required on this API and Claude Code asks for up to 128000: above the plan's
 * maxOutputTokens it is lowered to the cap rather than refused, since the client cannot pick another value.
 */
function clampOutputTokens(request: MessagesRequest, plan: PlanConfig | undefined): void {
  const cap = plan?.maxOutputTokens;
  if (cap !== undefined && request.max_tokens > cap) request.max_tokens = cap;
}
