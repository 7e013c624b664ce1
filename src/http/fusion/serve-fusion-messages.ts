/**
 * /v1/messages for a fusion plan, served through chat (the pipeline's shape) and translated back, as
 * /v1/responses is: one Message whose usage sums every call, with the `router` object beside it, or
 * Anthropic's event stream of the writer's answer, whose message_delta carries the summed usage and the
 * `router` object. Keep-alives as for chat (SSE comments, which the SDK and Claude Code skip); a failure
 * after they opened the stream, or after the writer committed, is Anthropic's in-stream `error` event.
 */
import type { H3Event } from 'h3';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import type { ChatCompletionChunk } from '../../formats/openai-chat.js';
import type { CommittedStream } from '../../routing/chat-attempts.js';
import { synthesizeMessagesStream, type MessagesCall } from '../../routing/messages-attempts.js';
import { chatCompletionToMessage } from '../../translators/messages/chat-to-message.js';
import { messagesRequestToChat } from '../../translators/messages/messages-request-to-chat.js';
import { randomResponseId } from '../../translators/responses/random-response-id.js';
import type { RouterDeps } from '../router-deps.js';
import type { ServingRecord } from '../request-context.js';
import { setRoutingHeaders } from '../routes/routing-headers.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { MessagesStreamEncoder, messagesUsage } from '../encoders/messages-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { FusionUsage, routerExtension, totalUsage, withFusionCost } from './fusion-report.js';
import { keepAliveMsOf, type FusionPlan } from './fusion-plan.js';
import { completePlan, startFusion, streamPlan, type FusionCallContext } from './run-fusion-plan.js';

export async function serveFusionMessages(
  event: H3Event,
  serving: ServingRecord,
  deps: RouterDeps,
  plan: FusionPlan,
  call: FusionCallContext,
  messages: Omit<MessagesCall, 'signal'>,
): Promise<unknown> {
  const { request } = messages;
  const chat = messagesRequestToChat({ ...request, stream: request.stream === true });
  const fusion = startFusion(serving, call);
  if (request.stream !== true) {
    const { trace } = fusion;
    const { value, meta } = await completePlan(deps, plan, call, chat, serving, fusion);
    serving.firstByteAt = deps.clock.now();
    setRoutingHeaders(event.node.res, meta);
    const message = chatCompletionToMessage(value, { id: randomResponseId('msg'), model: messages.model, stopSequences: request.stop_sequences });
    return { ...message, usage: withFusionCost(messagesUsage(totalUsage(trace)), trace, deps.usage.prices, deps.config.server.ledger.costInResponses), router: routerExtension(trace, deps.usage.prices) };
  }
  // The writer's own tokens are its ledger record, read from its chat chunks; the client is shown every call's, summed.
  const report = new FusionUsage(serving, fusion, deps.usage.prices, deps.config.server.ledger.costInResponses, true);
  const encoder = new MessagesStreamEncoder(streamTarget(event.node.res, serving, report, deps));
  await serveClientStream(
    encoder,
    async () => {
      const { value, meta } = await streamPlan(deps, plan, call, chat, serving, fusion);
      const writerChunks = tapUsage(value, (chunk) => {
        if (chunk.usage) report.recordWriterTokens(tokenUsageFromChat(chunk.usage));
      });
      return { value: synthesizeMessagesStream({ ...messages, signal: call.signal }, writerChunks), meta };
    },
    { stopped: deps.drain.deadline, keepAliveMs: keepAliveMsOf(plan) },
  );
  return undefined;
}

/** The same stream, with `seen` called on each chunk as it passes (closing it still closes the upstream). */
function tapUsage(stream: CommittedStream<ChatCompletionChunk>, seen: (chunk: ChatCompletionChunk) => void): CommittedStream<ChatCompletionChunk> {
  stream.head.forEach(seen);
  const { tail } = stream;
  return {
    head: stream.head,
    tail: {
      async next() {
        const next = await tail.next();
        if (!next.done) seen(next.value);
        return next;
      },
      return: async (value) => (await tail.return?.(value)) ?? { done: true, value },
    },
  };
}
