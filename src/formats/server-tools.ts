/**
 * What in a request body an upstream bills beyond its tokens, read per client API: tools the upstream
 * runs itself (Anthropic's server tools, OpenAI's hosted Responses tools), connectors and containers,
 * and service tiers priced above the standard one. The spend gate (usage/spend-gate.ts) refuses each on
 * the operator's keys unless the account's plan allows it, and prices the ones it allows per call.
 *
 * Gemini's grounding tools (google_search, url_context, code_execution) cannot be asked for: Gemini is
 * reached only through translation, which sends function declarations alone.
 */

/** The names a plan may allow (plans.yaml `managedServerTools.allow`, whose schema lists them) and pricing.yaml prices per call. */
export type ServerToolName = 'web_search' | 'web_fetch' | 'code_execution' | 'mcp' | 'file_search' | 'image_generation' | 'computer_use';

/** One billable feature of a request: its name (a ServerToolName, or what no plan can allow), the field, its own call bound. */
export interface BillableFeature {
  name: string;
  /** The field that asks for it, for the refusal (`tools[2]`, `mcp_servers`, `service_tier`). */
  param: string;
  /** Where the request bounds its calls itself (Anthropic's `max_uses`; Responses' `max_tool_calls`). */
  maxCalls?: number;
}

/** A tier priced above standard; no plan can allow it, since the ledger prices tokens at standard rates. */
export const PREMIUM_TIER = 'premium_tier';

/** Anthropic tools the client runs (custom tools and the Anthropic-defined client tools): only tokens. */
const ANTHROPIC_CLIENT_TOOL = /^(custom|bash_\d+|text_editor_\d+|computer_\d+|memory_\d+)$/;
/** Responses tools the client runs: only tokens. */
const RESPONSES_CLIENT_TOOLS: ReadonlySet<string> = new Set(['function', 'custom', 'local_shell', 'shell', 'apply_patch']);
/** Hosted Responses tools by the name plans and prices use. */
const RESPONSES_TOOL_NAMES: Readonly<Record<string, ServerToolName>> = Object.assign(Object.create(null) as Record<string, ServerToolName>, {
  web_search: 'web_search',
  web_search_2025_08_26: 'web_search',
  web_search_preview: 'web_search',
  web_search_preview_2025_03_11: 'web_search',
  file_search: 'file_search',
  code_interpreter: 'code_execution',
  image_generation: 'image_generation',
  computer: 'computer_use',
  computer_use: 'computer_use',
  computer_use_preview: 'computer_use',
  mcp: 'mcp',
});
/** OpenAI's tiers that cost no more than `default` (`flex` costs less). */
const OPENAI_STANDARD_TIERS: ReadonlySet<unknown> = new Set([null, undefined, 'auto', 'default', 'flex']);
/** Anthropic's: `auto` may draw on Priority Tier capacity, billed above standard. */
const ANTHROPIC_STANDARD_TIERS: ReadonlySet<unknown> = new Set([null, undefined, 'standard_only']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function wholeNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Anthropic's versioned tool type as its name: `web_search_20250305` → `web_search`. */
function anthropicToolName(type: string): string {
  return type.replace(/_\d{8}$/, '');
}

export function messagesBillableFeatures(body: Readonly<Record<string, unknown>>): BillableFeature[] {
  const features: BillableFeature[] = [];
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, index) => {
      const type = isRecord(tool) ? tool.type : undefined;
      if (typeof type !== 'string' || type.startsWith('router:') || ANTHROPIC_CLIENT_TOOL.test(type)) return;
      const maxCalls = wholeNumber((tool as Record<string, unknown>).max_uses);
      features.push({ name: anthropicToolName(type), param: `tools[${index}]`, ...(maxCalls === undefined ? {} : { maxCalls }) });
    });
  }
  if (Array.isArray(body.mcp_servers) && body.mcp_servers.length > 0) features.push({ name: 'mcp', param: 'mcp_servers' });
  if (body.container != null) features.push({ name: 'code_execution', param: 'container' });
  if (!ANTHROPIC_STANDARD_TIERS.has(body.service_tier)) features.push({ name: PREMIUM_TIER, param: 'service_tier' });
  if (body.inference_geo != null) features.push({ name: PREMIUM_TIER, param: 'inference_geo' });
  return features;
}

export function responsesBillableFeatures(body: Readonly<Record<string, unknown>>): BillableFeature[] {
  const features: BillableFeature[] = [];
  const maxCalls = wholeNumber(body.max_tool_calls);
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, index) => {
      const type = isRecord(tool) ? tool.type : undefined;
      if (typeof type !== 'string' || type.startsWith('router:') || RESPONSES_CLIENT_TOOLS.has(type)) return;
      features.push({ name: RESPONSES_TOOL_NAMES[type] ?? type, param: `tools[${index}]`, ...(maxCalls === undefined ? {} : { maxCalls }) });
    });
  }
  if (!OPENAI_STANDARD_TIERS.has(body.service_tier)) features.push({ name: PREMIUM_TIER, param: 'service_tier' });
  return features;
}

/**
 * Chat Completions: OpenAI's search models bill per request with `web_search_options`, and chat answers
 * report no count to settle it by, so no plan can allow it on managed access (Responses' web_search can be).
 */
export function chatBillableFeatures(body: Readonly<Record<string, unknown>>): BillableFeature[] {
  const features: BillableFeature[] = [];
  if (body.web_search_options != null) features.push({ name: 'web_search_options', param: 'web_search_options' });
  if (!OPENAI_STANDARD_TIERS.has(body.service_tier)) features.push({ name: PREMIUM_TIER, param: 'service_tier' });
  return features;
}

/** A Responses answer's hosted tool calls by name (`web_search_call` items and the like), counted from its output. */
const RESPONSES_CALL_ITEMS: Readonly<Record<string, ServerToolName>> = Object.assign(Object.create(null) as Record<string, ServerToolName>, {
  web_search_call: 'web_search',
  file_search_call: 'file_search',
  code_interpreter_call: 'code_execution',
  image_generation_call: 'image_generation',
  computer_call: 'computer_use',
  mcp_call: 'mcp',
});

export function responsesServerToolCalls(output: unknown): Record<string, number> | undefined {
  if (!Array.isArray(output)) return undefined;
  let calls: Record<string, number> | undefined;
  for (const item of output) {
    const name = isRecord(item) && typeof item.type === 'string' ? RESPONSES_CALL_ITEMS[item.type] : undefined;
    if (name === undefined) continue;
    calls ??= Object.create(null) as Record<string, number>;
    calls[name] = (calls[name] ?? 0) + 1;
  }
  return calls;
}

/** Anthropic's `usage.server_tool_use` (`web_search_requests`, `web_fetch_requests`, …) by tool name. */
export function messagesServerToolCalls(serverToolUse: unknown): Record<string, number> | undefined {
  if (!isRecord(serverToolUse)) return undefined;
  let calls: Record<string, number> | undefined;
  for (const [field, value] of Object.entries(serverToolUse)) {
    const count = wholeNumber(value);
    if (!field.endsWith('_requests') || !count) continue;
    calls ??= Object.create(null) as Record<string, number>;
    calls[field.slice(0, -'_requests'.length)] = count;
  }
  return calls;
}

/** A request's billable features, and how to hold the calls of its server tools to a bound on the body itself. */
export interface ServerToolRequest {
  features: BillableFeature[];
  limitCalls(maxCalls: number): void;
}

/** Anthropic's server tools that take `max_uses`. */
const TAKES_MAX_USES = /^(web_search|web_fetch)_\d{8}$/;

export function messagesServerTools(body: Record<string, unknown>): ServerToolRequest {
  return {
    features: messagesBillableFeatures(body),
    limitCalls(maxCalls) {
      if (!Array.isArray(body.tools)) return;
      body.tools = body.tools.map((tool: unknown) => {
        if (!isRecord(tool) || typeof tool.type !== 'string' || !TAKES_MAX_USES.test(tool.type)) return tool;
        return { ...tool, max_uses: Math.min(wholeNumber(tool.max_uses) ?? maxCalls, maxCalls) };
      });
    },
  };
}

export function responsesServerTools(body: Record<string, unknown>): ServerToolRequest {
  const features = responsesBillableFeatures(body);
  return {
    features,
    limitCalls(maxCalls) {
      // max_tool_calls bounds every hosted tool call of the response together.
      if (features.some((feature) => feature.param.startsWith('tools['))) body.max_tool_calls = Math.min(wholeNumber(body.max_tool_calls) ?? maxCalls, maxCalls);
    },
  };
}

export function chatServerTools(body: Record<string, unknown>): ServerToolRequest {
  return { features: chatBillableFeatures(body), limitCalls() {} };
}
