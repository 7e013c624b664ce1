/**
 * Messages `tools` and `tool_choice` → chat. Client tools become function tools; the router's own
 * `router:fusion` keeps its type so the fusion rules see it; Anthropic's server tools (web search, code
 * execution, …) run at Anthropic only and are refused on a translated route rather than silently lost.
 */
import { RouterError } from '../../core/errors.js';
import type { CacheControl, ChatRequest, ChatTool, ChatToolChoice } from '../../formats/openai-chat.js';
import type { MessagesRequest, MessagesTool } from '../../formats/anthropic-messages.js';

const FUSION_TOOL = 'router:fusion';

export function messagesToolsToChat(request: MessagesRequest): Pick<ChatRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls'> {
  const out: Pick<ChatRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls'> = {};
  if (request.tools !== undefined && request.tools.length > 0) out.tools = request.tools.map(toolToChat);
  const choice = request.tool_choice;
  if (choice !== undefined) {
    out.tool_choice = toolChoiceToChat(choice);
    if ('disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  }
  return out;
}

function toolToChat(tool: MessagesTool, index: number): ChatTool {
  if (tool.type === FUSION_TOOL) return { type: FUSION_TOOL };
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw new RouterError('unsupported_parameter', `The server tool '${tool.type}' runs only at Anthropic; this route's upstream cannot run it.`, {
      param: `tools[${index}]`,
    });
  }
  if (typeof tool.name !== 'string' || tool.name === '') {
    throw new RouterError('invalid_request', `Missing required parameter: 'tools[${index}].name'.`, { param: `tools[${index}].name` });
  }
  const parameters = tool.input_schema === undefined ? { type: 'object', properties: {} } : portableSchema(tool.input_schema);
  const chat: ChatTool = {
    type: 'function',
    function: { name: tool.name, ...(typeof tool.description === 'string' ? { description: tool.description } : {}), parameters: parameters as Record<string, unknown> },
  };
  // A breakpoint on a tool caches the tool list up to it, for an Anthropic adapter; the others drop it.
  const breakpoint = tool.cache_control;
  return typeof breakpoint === 'object' && breakpoint !== null ? { ...chat, cache_control: breakpoint as CacheControl } : chat;
}

function toolChoiceToChat(choice: NonNullable<MessagesRequest['tool_choice']>): ChatToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
  }
}

/**
 * A tool schema every upstream accepts. quirk(gemini): it rejects `$schema` and draft-07's numeric
 * `exclusiveMinimum`/`exclusiveMaximum`, which Claude Code's generated schemas carry. The bound becomes
 * an inclusive one: the schema only guides the model, the client checks the arguments it gets.
 */
export function portableSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(portableSchema);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === '$schema') continue;
    if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof member === 'number') {
      const inclusive = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
      if (!(inclusive in value)) out[inclusive] = member;
      continue;
    }
    // Defined, not assigned: a property the client named `__proto__` (own, from JSON.parse) would set the prototype instead and vanish.
    Object.defineProperty(out, key, { value: portableSchema(member), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
