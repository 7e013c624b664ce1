/** POST /v1/chat/completions: route by profile, answer as JSON or as a chat.completion.chunk stream. */
import type { H3Event } from 'h3';
import type { ChatCompletionChunk, ChatRequest } from '../../formats/openai-chat.js';
import type { CommittedStream } from '../../routing/chat-attempts.js';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import { abortOnDisconnect } from '../abort-on-disconnect.js';
import { authorizeRoute } from '../authorize-route.js';
import { applyOutputTokenCap } from '../output-token-cap.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { INTERRUPTED_CODE, relayCommittedStream } from '../relay-committed-stream.js';
import { SseWriter } from '../sse-writer.js';
import { fusionPlanOf, requireFusionAccess, toolFusionOf } from '../fusion/fusion-plan.js';
import { serveFusionChat } from '../fusion/serve-fusion-chat.js';
import { setRoutingHeaders, routingHeaders } from './routing-headers.js';
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
      const { value, meta } = await deps.engine.streamChat(call, chat);
      ctx.served = meta;
      await writeChatStream(event, ctx, deps, value, route.id, chat.stream_options?.include_usage === true);
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

async function writeChatStream(
  event: H3Event,
  ctx: RouterRequestContext,
  deps: RouterDeps,
  stream: CommittedStream<ChatCompletionChunk>,
  model: string,
  includeUsage: boolean,
): Promise<void> {
  const writer = new SseWriter(event.node.res);
  writer.open(routingHeaders(ctx.served!));
  ctx.firstByteAt = deps.clock.now();
  const emit = (chunk: ChatCompletionChunk): Promise<void> | undefined => {
    chunk.model = model;
    const finished = chunk.choices[0]?.finish_reason;
    if (finished) ctx.finishReason = finished;
    if (chunk.usage) {
      ctx.usage = tokenUsageFromChat(chunk.usage);
      if (includeUsage && deps.config.server.ledger.costInResponses) Object.assign(chunk.usage, responseCost(deps.usage.prices, ctx.served, ctx.usage));
    }
    if (chunk.usage && chunk.choices.length === 0 && !includeUsage) return undefined;
    if (includeUsage) chunk.usage ??= null;
    else delete chunk.usage;
    return writer.send(chunk);
  };
  const failure = await relayCommittedStream(writer, stream, emit, deps.drain.deadline);
  if (failure) {
    ctx.errorCode = failure.code ?? INTERRUPTED_CODE;
    await writer.send({ error: { message: failure.message, type: failure.type, code: failure.code ?? INTERRUPTED_CODE, param: null } });
  }
  await writer.done();
  writer.end();
}
