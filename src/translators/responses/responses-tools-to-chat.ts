/**
 * Responses tools and tool_choice → chat. Function tools are unflattened into chat's nested shape,
 * custom tools become functions (custom-tool-bridge.ts), the router's own `router:*` tools pass through
 * for the engine to handle, and hosted tools (web_search, local_shell, file_search, …) are dropped:
 * a chat upstream cannot run them, and Codex advertises them on every request.
 */
import { RouterError } from '../../core/errors.js';
import type { ChatRequest, ChatTool, ChatToolChoice } from '../../formats/openai-chat.js';
import type { ResponsesRequest, ResponsesTool, ResponsesToolChoice } from '../../formats/openai-responses.js';
import { customToolAsFunction } from './custom-tool-bridge.js';

export type ChatToolFields = Pick<ChatRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls'>;

export function responsesToolsToChat(request: ResponsesRequest): ChatToolFields {
  const tools = (request.tools ?? []).flatMap((tool, index) => toolToChat(tool, `tools[${index}]`));
  // Chat hosts reject tool_choice and parallel_tool_calls when no tools are sent.
  if (tools.length === 0) return {};
  const fields: ChatToolFields = { tools };
  const toolChoice = toolChoiceToChat(request.tool_choice);
  if (toolChoice !== undefined) fields.tool_choice = toolChoice;
  if (typeof request.parallel_tool_calls === 'boolean') fields.parallel_tool_calls = request.parallel_tool_calls;
  return fields;
}

function toolToChat(tool: ResponsesTool, param: string): ChatTool[] {
  if (typeof tool?.type !== 'string') throw invalid(`${param}.type must be a string.`, `${param}.type`);
  if (tool.type === 'function' || tool.type === 'custom') {
    if (typeof tool.name !== 'string' || tool.name === '') throw invalid(`${param}.name must be a non-empty string.`, `${param}.name`);
  }
  if (tool.type === 'custom') return [customToolAsFunction(tool)];
  if (tool.type === 'function') {
    const { name, description, parameters, strict } = tool;
    return [
      {
        type: 'function',
        function: {
          name,
          ...(description != null && { description }),
          ...(parameters != null && { parameters }),
          ...(strict != null && { strict }),
        },
      },
    ];
  }
  return tool.type.startsWith('router:') ? [tool] : [];
}

function toolChoiceToChat(choice: ResponsesToolChoice | undefined | null): ChatToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'none' || choice === 'auto' || choice === 'required') return choice;
  if (typeof choice !== 'object') throw invalid('tool_choice must be "none", "auto", "required" or an object.', 'tool_choice');
  switch (choice.type) {
    case 'function':
    case 'custom':
      return { type: 'function', function: { name: choice.name } };
    case 'allowed_tools':
      return {
        type: 'allowed_tools',
        allowed_tools: {
          mode: choice.mode,
          tools: (choice.tools ?? []).flatMap((tool) =>
            (tool.type === 'function' || tool.type === 'custom') && typeof tool.name === 'string'
              ? [{ type: 'function', function: { name: tool.name } }]
              : [],
          ),
        },
      };
    default:
      // A hosted tool was forced, but hosted tools are dropped: let the upstream choose among the rest.
      return undefined;
  }
}

function invalid(message: string, param: string): RouterError {
  return new RouterError('invalid_request', message, { param });
}
