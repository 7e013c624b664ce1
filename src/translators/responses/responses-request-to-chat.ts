/**
 * A Responses request (`POST /v1/responses`) → the internal chat request, for upstreams that only speak
 * chat (wire-formats.md §6.3). The router is stateless: anything that needs server-side state
 * (previous_response_id, conversation, stored prompts, background, item references) is refused before
 * admission by rejectStatefulFields, on every route. Storage and delivery options (store, include,
 * truncation, service_tier) are ignored: they do not change what the model is asked.
 */
import { RouterError } from '../../core/errors.js';
import type { ChatMessage, ChatRequest, ChatResponseFormat } from '../../formats/openai-chat.js';
import type { ResponsesRequest, ResponsesTextFormat } from '../../formats/openai-responses.js';
import { responsesInputToMessages } from './responses-input-to-messages.js';
import { responsesToolsToChat } from './responses-tools-to-chat.js';

export function responsesRequestToChat(request: ResponsesRequest): ChatRequest {
  const chat: ChatRequest = {
    model: request.model,
    messages: [...instructionsMessages(request.instructions), ...responsesInputToMessages(request.input)],
    ...responsesToolsToChat(request),
  };
  copyGenerationOptions(chat, request);
  copyIdentityFields(chat, request);
  if (request.stream === true) {
    chat.stream = true;
    // Usage is only reported in chat streams when asked for; the terminal Responses event needs it.
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

function instructionsMessages(instructions: ResponsesRequest['instructions']): ChatMessage[] {
  if (instructions == null || instructions === '') return [];
  if (typeof instructions !== 'string') {
    throw new RouterError('invalid_request', 'instructions must be a string.', { param: 'instructions' });
  }
  return [{ role: 'system', content: instructions }];
}

function copyGenerationOptions(chat: ChatRequest, request: ResponsesRequest): void {
  if (typeof request.max_output_tokens === 'number') chat.max_completion_tokens = request.max_output_tokens;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (typeof request.reasoning?.effort === 'string') chat.reasoning_effort = request.reasoning.effort;
  const responseFormat = responseFormatToChat(request.text?.format ?? undefined);
  if (responseFormat !== undefined) chat.response_format = responseFormat;
}

function copyIdentityFields(chat: ChatRequest, request: ResponsesRequest): void {
  if (typeof request.user === 'string') chat.user = request.user;
  if (typeof request.safety_identifier === 'string') chat.safety_identifier = request.safety_identifier;
  if (typeof request.prompt_cache_key === 'string') chat.prompt_cache_key = request.prompt_cache_key;
  if (request.metadata != null) chat.metadata = request.metadata;
}

/** Plain text is every upstream's default, so it is left out rather than sent to hosts that may reject it. */
function responseFormatToChat(format: ResponsesTextFormat | undefined): ChatResponseFormat | undefined {
  switch (format?.type) {
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const { name, description, schema, strict } = format;
      return {
        type: 'json_schema',
        json_schema: { name, schema, ...(description != null && { description }), ...(strict != null && { strict }) },
      };
    }
    default:
      return undefined;
  }
}
