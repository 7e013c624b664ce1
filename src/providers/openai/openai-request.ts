import type { AdapterContext } from '../adapter.js';
import type { UpstreamRequest } from '../../upstream/upstream-request.js';

/**
 * The one place an OpenAI-compatible upstream request is assembled: configured base URL + path, bearer
 * credential, JSON body. Client headers are never forwarded (SDK telemetry, org/project ids and the
 * client's own key stay with us); only the operator's static provider headers are added.
 */
export function openaiRequest(ctx: AdapterContext, path: string, body: Record<string, unknown>): UpstreamRequest {
  const baseUrl = ctx.provider.baseUrl.endsWith('/') ? ctx.provider.baseUrl.slice(0, -1) : ctx.provider.baseUrl;
  return {
    url: `${baseUrl}${path}`,
    headers: {
      ...ctx.provider.headers,
      'content-type': 'application/json',
      accept: ctx.stream ? 'text/event-stream' : 'application/json',
      authorization: `Bearer ${ctx.credential}`,
    },
    body: JSON.stringify(body),
  };
}
