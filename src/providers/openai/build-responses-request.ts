import type { AdapterContext } from '../adapter.js';
import type { UpstreamRequest } from '../../upstream/upstream-request.js';
import { openaiRequest } from './openai-request.js';
import { REDIRECTING_FIELDS } from '../../formats/redirecting-fields.js';
import { removeRouterTools } from './remove-router-tools.js';
import { isRouterCarrier } from '../../formats/reasoning-carrier.js';

/**
 * Native Responses passthrough (provider.nativeResponses): the client's `/v1/responses` body goes to
 * `${baseUrl}/responses` as it is, with the route's upstream model and without the router's own tools.
 * The engine rewrites `model` back on the way out with rewriteResponsesModel.
 * `store` is always false: the router serves no stored responses (no retrieval, no previous_response_id),
 * so asking the host to keep one would only leave the account's data on it, and the host's answer says
 * `store: false` as on every other route. Fields that could send it elsewhere or with other credentials
 * are dropped (redirecting-fields.ts).
 */
/** Set here, or never sent; `__proto__` too: copied onto the plain body it would set the body's prototype, not a field. */
const LEFT_OUT: ReadonlySet<string> = new Set(['model', 'store', 'stream', '__proto__', ...REDIRECTING_FIELDS]);

export function buildResponsesRequest(body: Record<string, unknown>, ctx: AdapterContext): UpstreamRequest {
  const upstreamBody: Record<string, unknown> = { model: ctx.upstreamModel };
  for (const key of Object.keys(body)) if (!LEFT_OUT.has(key)) upstreamBody[key] = body[key];
  upstreamBody.store = false;
  if (ctx.stream) upstreamBody.stream = true;
  removeRouterTools(upstreamBody);
  if (Array.isArray(upstreamBody.input)) upstreamBody.input = upstreamBody.input.filter((item) => !isRouterCarrier((item as { encrypted_content?: unknown } | null)?.encrypted_content));
  return openaiRequest(ctx, '/responses', upstreamBody);
}
