/** POST /v1/chat/completions: route by profile, answer as JSON or as a chat.completion.chunk stream. */
import type { H3Event } from 'h3';
import type { ChatRequest } from '../../formats/openai-chat.js';
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import { applyOutputTokenCap } from '../output-token-cap.js';
import type { RouterDeps } from '../router-deps.js';
import type { AdmittedRequest, ServingRecord } from '../request-context.js';
import { ChatStreamEncoder } from '../encoders/chat-stream-encoder.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { servedUsage } from '../encoders/served-usage.js';
import { serveFusionChat } from '../fusion/serve-fusion-chat.js';
import { chatServerTools } from '../../formats/server-tools.js';
import { prepareModelCall, recordAnswer, type OutputCap } from './model-call.js';

const CHAT_OUTPUT_CAP: OutputCap = (body, plan) => applyOutputTokenCap(body, plan, 'chat');

export function createChatCompletionsRoute(deps: RouterDeps) {
  return async (event: H3Event, request: AdmittedRequest, serving: ServingRecord): Promise<unknown> => {
    const { route, fusion, call } = await prepareModelCall(event, request, serving, deps, { capOutput: CHAT_OUTPUT_CAP, serverTools: chatServerTools });
    const chat = request.body as ChatRequest;
    if (fusion) return serveFusionChat(event, serving, deps, fusion, call, chat);
    if (chat.stream) {
      const encoder = new ChatStreamEncoder(streamTarget(event.node.res, serving, servedUsage(serving, deps), deps), { model: route.id, includeUsage: chat.stream_options?.include_usage === true });
      await serveClientStream(encoder, () => deps.engine.streamChat(call, chat), { stopped: deps.drain.deadline });
      return undefined;
    }
    const { value, meta } = await deps.engine.completeChat(call, chat);
    recordAnswer(event, serving, deps, meta, { tokens: tokenUsageFromChat(value.usage), finishReason: value.choices[0]?.finish_reason ?? undefined, shownUsage: value.usage });
    value.model = route.id;
    return value;
  };
}
