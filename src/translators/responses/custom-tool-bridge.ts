/**
 * Chat upstreams only know JSON-argument function tools, so a Responses custom (free-form) tool such as
 * Codex's `apply_patch` travels upstream as a function with one required string parameter, `input`,
 * and its grammar appended to the description so the model still sees the expected syntax. Calls to
 * those functions come back as `custom_tool_call` items with the raw `input` unwrapped again. Which
 * names were custom is always recomputed from the client's request, the one source of truth.
 */
import type { ChatFunctionTool } from '../../formats/openai-chat.js';
import type { ResponsesCustomTool, ResponsesRequest } from '../../formats/openai-responses.js';

export const CUSTOM_TOOL_INPUT_PARAM = 'input';

export function customToolAsFunction(tool: ResponsesCustomTool): ChatFunctionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: describeCustomTool(tool),
      parameters: {
        type: 'object',
        properties: {
          [CUSTOM_TOOL_INPUT_PARAM]: { type: 'string', description: 'The raw tool input, verbatim (not JSON-encoded).' },
        },
        required: [CUSTOM_TOOL_INPUT_PARAM],
        additionalProperties: false,
      },
    },
  };
}

function describeCustomTool(tool: ResponsesCustomTool): string {
  const description = tool.description ?? '';
  if (tool.format?.type !== 'grammar') return description;
  const grammar = `The "${CUSTOM_TOOL_INPUT_PARAM}" argument must match this ${tool.format.syntax} grammar:\n${tool.format.definition}`;
  return description === '' ? grammar : `${description}\n\n${grammar}`;
}

/** Names of the request's custom tools, whose calls must be returned as `custom_tool_call` items. */
export function customToolNames(request: ResponsesRequest): ReadonlySet<string> {
  return new Set((request.tools ?? []).flatMap((tool) => (tool.type === 'custom' ? [tool.name] : [])));
}

/** Arguments of the function call that stands for a custom tool call in chat history. */
export function customToolCallArguments(input: string): string {
  return JSON.stringify({ [CUSTOM_TOOL_INPUT_PARAM]: input });
}

/**
 * The raw input of a custom tool call from the function arguments the model produced. A model that
 * ignored the wrapper (plain text, or JSON without a string `input`) still gets its output through
 * verbatim rather than lost.
 */
export function customToolInputFromArguments(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null) {
      const input = (parsed as Record<string, unknown>)[CUSTOM_TOOL_INPUT_PARAM];
      if (typeof input === 'string') return input;
    }
  } catch {
    // Not JSON: the model wrote the raw input directly, which is exactly what the client wants.
  }
  return args;
}
