/**
 * Native Messages pass-through: a client's `/v1/messages` body goes to `{baseUrl}/messages` as it is
 * (system blocks, cache_control, thinking, tool_choice, metadata, images, documents, betas' fields),
 * with only the model and the credential rewritten, the router's own `router:fusion` tool removed, and
 * thinking blocks the router signed on another upstream turned back into Anthropic's (native-thinking.ts).
 * `anthropic-beta` values pass only when on the allow list: a beta can change billing or reach stored
 * data (files, skills, MCP), so an unknown one is dropped rather than forwarded on the operator's key.
 */
import type { MessagesRequest } from '../../formats/anthropic-messages.js';
import type { AdapterContext, NativeMessagesHeaders } from '../adapter.js';
import type { UpstreamRequest } from '../../upstream/upstream-request.js';
import { splitHeaderList } from '../../core/split-header-list.js';
import { withoutRouterThinking } from './native-thinking.js';

const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** Betas that only change how a request is served, not whose data or money it reaches; Claude Code's among them. */
export const ALLOWED_ANTHROPIC_BETAS: ReadonlySet<string> = new Set([
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'advanced-tool-use-2025-11-20',
  'fine-grained-tool-streaming-2025-05-14',
  'token-efficient-tools-2025-02-19',
  'prompt-caching-2024-07-31',
  'extended-cache-ttl-2025-04-11',
  'output-128k-2025-02-19',
  'context-1m-2025-08-07',
  'pdfs-2024-09-25',
  'structured-outputs-2025-11-13',
]);

/** `path`: `/messages`, or `/messages/count_tokens` for a count. */
export function buildNativeMessagesRequest(request: MessagesRequest, ctx: AdapterContext, client: NativeMessagesHeaders, path = '/messages'): UpstreamRequest {
  const body: Record<string, unknown> = { ...request, model: ctx.upstreamModel };
  if (ctx.stream) body.stream = true;
  else delete body.stream;
  withoutRouterThinking(body, request.messages);
  if (Array.isArray(request.tools)) {
    const tools = request.tools.filter((tool) => tool.type !== 'router:fusion');
    if (tools.length > 0) body.tools = tools;
    else delete body.tools;
  }
  return { url: `${ctx.provider.baseUrl.replace(/\/+$/, '')}${path}`, headers: nativeHeaders(ctx, client), body: JSON.stringify(body) };
}

function nativeHeaders(ctx: AdapterContext, client: NativeMessagesHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.provider.headers)) headers[name.toLowerCase()] = value;
  headers['anthropic-version'] ??= client.version ?? DEFAULT_ANTHROPIC_VERSION;
  const betas = new Set([...splitHeaderList(headers['anthropic-beta']), ...client.betas.filter((beta) => ALLOWED_ANTHROPIC_BETAS.has(beta))]);
  if (betas.size > 0) headers['anthropic-beta'] = [...betas].join(',');
  headers['x-api-key'] = ctx.credential;
  headers['content-type'] = 'application/json';
  return headers;
}
