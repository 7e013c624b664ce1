/**
 * A Messages request (`POST /v1/messages`) → the internal chat request, for upstreams served through
 * chat (OpenAI-format, Gemini, and every member of a fusion run). `thinking` becomes chat's `reasoning`
 * (messages-thinking.ts) and `cache_control` the chat breakpoints, which each adapter honours or drops
 * for its own provider (reasoning only for a model its catalog entry says reasons). What has no chat
 * equivalent and only tunes Anthropic's own serving is dropped: `context_management`, `top_k`,
 * `service_tier`, betas.
 */
import type { ChatRequest } from '../../formats/openai-chat.js';
import type { MessagesRequest } from '../../formats/anthropic-messages.js';
import { messagesToChat, systemToChat } from './messages-content-to-chat.js';
import { messagesToolsToChat } from './messages-tools-to-chat.js';
import { thinkingToReasoning } from './messages-thinking.js';

export function messagesRequestToChat(request: MessagesRequest): ChatRequest {
  const chat: ChatRequest = {
    model: request.model,
    messages: [...systemToChat(request.system), ...messagesToChat(request.messages)],
    max_tokens: request.max_tokens,
    ...messagesToolsToChat(request),
  };
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (Array.isArray(request.stop_sequences) && request.stop_sequences.length > 0) chat.stop = request.stop_sequences;
  const reasoning = thinkingToReasoning(request);
  if (reasoning !== undefined) chat.reasoning = reasoning;
  const userId = request.metadata?.user_id;
  if (typeof userId === 'string' && userId !== '') chat.user = userId;
  if (request.stream === true) {
    chat.stream = true;
    // Chat streams report usage only when asked; message_delta needs it.
    chat.stream_options = { include_usage: true };
  }
  return chat;
}
