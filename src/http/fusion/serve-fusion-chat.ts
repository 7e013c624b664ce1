/**
 * /v1/chat/completions for a fusion plan: one JSON body, or the writer's answer as a chat stream with
 * the summed usage and the `router` object on its last chunk, then [DONE]. Until the writer commits,
 * the stream carries keep-alive comments only; a failure before that is the usual error response, or
 * an in-band error event once a keep-alive has opened the stream.
 */
import type { H3Event } from 'h3';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import type { ChatCompletionChunk, ChatRequest } from '../../formats/openai-chat.js';
import { INTERRUPTED_CODE, relayCommittedStream } from '../relay-committed-stream.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { routingHeaders, setRoutingHeaders } from '../routes/routing-headers.js';
import { errorBody } from '../send-error.js';
import { SseWriter } from '../sse-writer.js';
import { chatUsage, routerExtension, totalUsage, withFusionCost } from './fusion-report.js';
import { keepAliveMsOf, type FusionPlan } from './fusion-plan.js';
import { behindKeepAlive } from './keep-alive.js';
import { completePlan, streamPlan, type FusionCallContext } from './run-fusion-plan.js';

export async function serveFusionChat(event: H3Event, ctx: RouterRequestContext, deps: RouterDeps, plan: FusionPlan, call: FusionCallContext, chat: ChatRequest): Promise<unknown> {
  const model = plan.route.id;
  if (!chat.stream) {
    const { value, meta } = await completePlan(deps, plan, call, chat, ctx);
    ctx.firstByteAt = deps.clock.now();
    setRoutingHeaders(event.node.res, meta);
    const trace = ctx.fusion!.trace;
    return { ...value, model, usage: withFusionCost(chatUsage(totalUsage(trace)), trace, deps.usage.prices, deps.config.server.ledger.costInResponses), router: routerExtension(trace, deps.usage.prices) };
  }
  const writer = new SseWriter(event.node.res);
  const { value: result, opened } = await behindKeepAlive(writer, keepAliveMsOf(plan), ctx, () => streamPlan(deps, plan, call, chat, ctx), async (error) => {
    await writer.send(errorBody(error, deps.config.server));
    await writer.done();
  });
  if (!opened) writer.open(routingHeaders(result.meta));
  ctx.firstByteAt = deps.clock.now();
  const main = result.main;
  let last: Pick<ChatCompletionChunk, 'id' | 'created'> | undefined;
  const emit = async (chunk: ChatCompletionChunk) => {
    last ??= { id: chunk.id, created: chunk.created };
    chunk.model = model;
    if (chunk.usage) ctx.usage = main.usage = tokenUsageFromChat(chunk.usage);
    delete chunk.usage;
    if (chunk.choices.length > 0) await writer.send(chunk);
  };
  const failure = await relayCommittedStream(writer, result.value, emit, deps.drain.deadline);
  if (failure) {
    ctx.errorCode = failure.code ?? INTERRUPTED_CODE;
    await writer.send({ error: { message: failure.message, type: failure.type, code: failure.code ?? INTERRUPTED_CODE, param: null } });
  } else {
    const trace = ctx.fusion!.trace;
    const includeUsage = chat.stream_options?.include_usage === true;
    await writer.send({
      id: last?.id ?? `chatcmpl-${ctx.requestId}`,
      object: 'chat.completion.chunk',
      created: last?.created ?? Math.floor(deps.clock.now() / 1000),
      model,
      choices: [],
      ...(includeUsage ? { usage: withFusionCost(chatUsage(totalUsage(trace)), trace, deps.usage.prices, deps.config.server.ledger.costInResponses) } : {}),
      router: routerExtension(trace, deps.usage.prices),
    });
  }
  await writer.done();
  writer.end();
  return undefined;
}
