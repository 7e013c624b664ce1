import { RouterError } from '../../core/errors.js';
import type { ChatFunctionTool, ChatRequest, ChatTool, ChatToolChoice } from '../../formats/openai-chat.js';
import type { GeminiFunctionDeclaration, GeminiRequest, GeminiToolConfig } from './gemini-types.js';

/**
 * Function tools → one `functionDeclarations` tool, `tool_choice` → `functionCallingConfig`. Tools of
 * other types (the router's own `router:fusion`, hosted tools) are not Gemini's business and are not sent.
 */
export function translateTools(request: ChatRequest): Pick<GeminiRequest, 'tools' | 'toolConfig'> {
  const declarations = (request.tools ?? []).filter(isFunctionTool).map(declaration);
  if (declarations.length === 0) return {};
  const toolConfig = request.tool_choice == null ? undefined : translateToolChoice(request.tool_choice);
  const tools = [{ functionDeclarations: declarations }];
  return toolConfig === undefined ? { tools } : { tools, toolConfig };
}

function isFunctionTool(tool: ChatTool): tool is ChatFunctionTool {
  return tool.type === 'function';
}

function declaration(tool: ChatFunctionTool): GeminiFunctionDeclaration {
  const { name, description, parameters } = tool.function;
  // `parametersJsonSchema` takes plain JSON Schema; `parameters` only an OpenAPI subset that rejects common schemas.
  return {
    name,
    ...(description === undefined ? {} : { description }),
    ...(parameters === undefined ? {} : { parametersJsonSchema: parameters }),
  };
}

function translateToolChoice(choice: ChatToolChoice): GeminiToolConfig {
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (typeof choice === 'object' && choice.type === 'function') {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    if (typeof name === 'string') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } };
  }
  if (typeof choice === 'object' && choice.type === 'allowed_tools') return allowedTools(choice);
  throw new RouterError('unsupported_parameter', 'This tool_choice cannot be expressed for Gemini upstreams.', { param: 'tool_choice' });
}

interface AllowedTools {
  mode?: unknown;
  tools?: Array<{ type?: unknown; function?: { name?: unknown } }>;
}

/**
 * `allowed_tools` narrows the callable set. Gemini only takes `allowedFunctionNames` with ANY or
 * VALIDATED; VALIDATED is the mode that still lets the model answer in text, i.e. `auto`.
 */
function allowedTools(choice: { [key: string]: unknown }): GeminiToolConfig {
  const { mode, tools = [] } = (choice['allowed_tools'] ?? {}) as AllowedTools;
  const names = tools.map((tool) => tool.function?.name).filter((name): name is string => typeof name === 'string');
  if ((mode !== 'auto' && mode !== 'required') || names.length === 0) {
    throw new RouterError('unsupported_parameter', 'tool_choice.allowed_tools needs mode auto or required and function tools.', {
      param: 'tool_choice.allowed_tools',
    });
  }
  return { functionCallingConfig: { mode: mode === 'auto' ? 'VALIDATED' : 'ANY', allowedFunctionNames: names } };
}
