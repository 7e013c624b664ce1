import { isRecord } from './is-record.js';

/** Tool types the router serves itself; no upstream knows them. */
const ROUTER_TOOL_TYPES: ReadonlySet<string> = new Set(['router:fusion']);

function isRouterTool(tool: unknown): boolean {
  return isRecord(tool) && typeof tool.type === 'string' && ROUTER_TOOL_TYPES.has(tool.type);
}

/**
 * Removes the router's own tools (`{type:"router:fusion"}`) from a request body that is about to be sent
 * upstream (chat or Responses; both keep tools in `tools[]`). When that leaves no tool, `tool_choice` and
 * `parallel_tool_calls` go too: OpenAI rejects them without tools. Mutates `body`, which must be a copy.
 */
export function removeRouterTools(body: Record<string, unknown>): void {
  if (isRouterTool(body.tool_choice)) delete body.tool_choice;
  if (!Array.isArray(body.tools)) return;
  const tools = body.tools.filter((tool) => !isRouterTool(tool));
  if (tools.length === body.tools.length) return;
  if (tools.length > 0) {
    body.tools = tools;
    return;
  }
  delete body.tools;
  delete body.tool_choice;
  delete body.parallel_tool_calls;
}
