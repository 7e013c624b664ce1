/**
 * A non-streaming chat completion → the Response object returned by `POST /v1/responses`
 * (wire-formats.md §6.3). Output order follows what OpenAI's own reasoning models produce: reasoning
 * first, then the message, then one item per tool call in the order the model made them.
 */
import type { ChatCompletion } from '../../formats/openai-chat.js';
import type { ResponseObject, ResponseOutputContentPart, ResponseOutputItem, ResponsesItemStatus } from '../../formats/openai-responses.js';
import { buildResponseObject, itemStatusFor, statusFromFinishReason, type ResponseContext } from './build-response-object.js';
import { customToolNames } from './custom-tool-bridge.js';
import { encodeReasoningDetails } from '../../formats/reasoning-carrier.js';
import { toolCallItem } from './tool-call-item.js';

type ChatAnswer = ChatCompletion['choices'][number]['message'];

export function chatCompletionToResponse(completion: ChatCompletion, ctx: ResponseContext): ResponseObject {
  // Responses has no `n`: the first choice is the answer.
  const choice = completion.choices[0];
  const { status, incompleteReason } = statusFromFinishReason(choice?.finish_reason ?? null);
  const output = choice ? outputItems(choice.message, ctx, itemStatusFor(status)) : [];
  return buildResponseObject(ctx, { status, output, usage: completion.usage, incompleteReason });
}

function outputItems(answer: ChatAnswer, ctx: ResponseContext, status: ResponsesItemStatus): ResponseOutputItem[] {
  const items: ResponseOutputItem[] = [];
  const details = answer.reasoning_details ?? [];
  if (answer.reasoning_content || details.length > 0) {
    const summary = answer.reasoning_content ? [{ type: 'summary_text' as const, text: answer.reasoning_content }] : [];
    const carried = details.length > 0 ? { encrypted_content: encodeReasoningDetails(details) } : {};
    items.push({ type: 'reasoning', id: ctx.newId('rs'), summary, ...carried, status });
  }
  const content = messageContent(answer);
  if (content.length > 0) {
    items.push({ type: 'message', id: ctx.newId('msg'), role: 'assistant', status, content });
  }
  const customTools = customToolNames(ctx.request);
  for (const call of answer.tool_calls ?? []) {
    const custom = customTools.has(call.function.name);
    const identity = { itemId: ctx.newId(custom ? 'ctc' : 'fc'), callId: call.id, name: call.function.name, custom };
    items.push(toolCallItem(identity, call.function.arguments, status));
  }
  return items;
}

function messageContent(answer: ChatAnswer): ResponseOutputContentPart[] {
  const parts: ResponseOutputContentPart[] = [];
  if (answer.content) parts.push({ type: 'output_text', text: answer.content, annotations: [], logprobs: [] });
  if (answer.refusal) parts.push({ type: 'refusal', refusal: answer.refusal });
  return parts;
}
