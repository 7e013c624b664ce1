import { RouterError } from '../../core/errors.js';
import type { ChatFunctionTool, ChatRequest, ChatTool } from '../../formats/openai-chat.js';
import type { AnthropicTool, AnthropicToolChoice } from './anthropic-types.js';

export interface TranslatedTools {
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
}

/**
 * Chat `tools`, `tool_choice` and `parallel_tool_calls` → Anthropic. Only function tools are sent:
 * `router:fusion` belongs to the router itself and other tool types have no Anthropic equivalent.
 * Without any function tool there is nothing to choose from, so tool_choice is left out as well.
 */
export function translateTools(request: ChatRequest): TranslatedTools {
  const tools = (request.tools ?? []).filter(isFunctionTool).map(toAnthropicTool);
  if (tools.length === 0) return {};
  const choice = toolChoice(request.tool_choice);
  if (request.parallel_tool_calls === false && choice.type !== 'none') {
    return { tools, tool_choice: { ...choice, disable_parallel_tool_use: true } };
  }
  // null, like an absent field, leaves the choice to the model.
  return request.tool_choice == null ? { tools } : { tools, tool_choice: choice };
}

function isFunctionTool(tool: ChatTool): tool is ChatFunctionTool {
  return tool.type === 'function' && typeof (tool as ChatFunctionTool).function?.name === 'string';
}

function toAnthropicTool(tool: ChatFunctionTool): AnthropicTool {
  const { name, description, parameters } = tool.function;
  // quirk(anthropic): input_schema is required and must be an object schema; chat allows omitting it.
  const input_schema = parameters ? { type: 'object', ...parameters } : { type: 'object', properties: {} };
  const anthropicTool: AnthropicTool = description === undefined ? { name, input_schema } : { name, description, input_schema };
  // A cache breakpoint on a tool (OpenRouter's placement) caches every tool up to and including it.
  if (tool.cache_control) anthropicTool.cache_control = tool.cache_control;
  return anthropicTool;
}

function toolChoice(choice: ChatRequest['tool_choice']): AnthropicToolChoice {
  if (choice == null || choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  const name = choice.type === 'function' ? (choice.function as { name?: unknown } | undefined)?.name : undefined;
  if (typeof name === 'string') return { type: 'tool', name };
  throw new RouterError(
    'unsupported_parameter',
    `tool_choice of type "${String(choice.type)}" is not supported on this route; use "auto", "required", "none" or a named function.`,
    { param: 'tool_choice' },
  );
}
