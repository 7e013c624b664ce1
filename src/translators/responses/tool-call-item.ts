/**
 * The output item for one tool call of a chat answer: a `function_call`, or a `custom_tool_call` with
 * its free-form input unwrapped when the function stands for one of the client's custom tools.
 */
import type { ResponseCustomToolCall, ResponseFunctionCall, ResponsesItemStatus } from '../../formats/openai-responses.js';
import { customToolInputFromArguments } from './custom-tool-bridge.js';

export interface ToolCallIdentity {
  /** The output item id (`fc_…` or `ctc_…`), referenced by `item_id` in stream events. */
  itemId: string;
  /** The chat tool call id; what the client's `function_call_output.call_id` will refer to. */
  callId: string;
  name: string;
  custom: boolean;
}

export function toolCallItem(call: ToolCallIdentity, args: string, status: ResponsesItemStatus): ResponseFunctionCall | ResponseCustomToolCall {
  if (call.custom) {
    return { type: 'custom_tool_call', id: call.itemId, call_id: call.callId, name: call.name, input: customToolInputFromArguments(args) };
  }
  return { type: 'function_call', id: call.itemId, call_id: call.callId, name: call.name, arguments: args, status };
}
