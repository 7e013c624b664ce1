/**
 * The one place a RouterError becomes an HTTP response: the OpenAI-style error body plus the guidance
 * fields the contract's table assigns to its code, the auth challenge, and the no-retry hint.
 */
import { STATUS_CODES } from 'node:http';
import type { H3Event } from 'h3';
import { API_KEY_PREFIX } from '../core/api-key.js';
import { ERROR_TABLE, type GuidanceField, type RouterError } from '../core/errors.js';
import type { ServerConfig } from '../config/types.js';

export interface ErrorBody {
  error: {
    message: string;
    type: string;
    code: string | null;
    param: string | null;
    [guidance: string]: unknown;
  };
}

export function errorBody(error: RouterError, server: ServerConfig): ErrorBody {
  const { type, code } = error.wire ?? error;
  const body: ErrorBody = { error: { message: error.message, type, code, param: error.param } };
  for (const field of ERROR_TABLE[error.code].guidance) {
    const value = guidanceValue(field, error, server);
    if (value !== undefined) body.error[field] = value;
  }
  Object.assign(body.error, error.details);
  return body;
}

export function errorHeaders(error: RouterError): Record<string, string> {
  const spec = ERROR_TABLE[error.code];
  const headers: Record<string, string> = { ...error.headers };
  if ('challenge' in spec) {
    headers['www-authenticate'] =
      spec.challenge === 'bare' ? 'Bearer realm="router"' : 'Bearer realm="router", error="invalid_token"';
  }
  if ('noRetry' in spec && spec.noRetry) headers['x-should-retry'] = 'false';
  return headers;
}

export function sendRouterError(event: H3Event, error: RouterError, server: ServerConfig): string {
  const res = event.node.res;
  res.statusCode = error.status;
  for (const [name, value] of Object.entries(errorHeaders(error))) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json');
  return JSON.stringify(errorBody(error, server));
}

/**
 * The whole HTTP/1.1 response for an error answered below h3, straight onto the socket (a request Node's
 * parser refused never becomes an event): the same body and headers as sendRouterError, plus the
 * request id and `Connection: close`.
 */
export function rawErrorResponse(error: RouterError, server: ServerConfig, requestId: string): string {
  const body = JSON.stringify(errorBody(error, server));
  const headers: Record<string, string> = {
    ...errorHeaders(error),
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n${head.join('\r\n')}\r\n\r\n${body}`;
}

function guidanceValue(field: GuidanceField, error: RouterError, server: ServerConfig): unknown {
  switch (field) {
    case 'docsUrl':
      return `${server.docsUrl}/errors#${error.code}`;
    case 'accountUrl':
      if (error.code === 'no_provider_access' || error.code === 'spend_cap_reached' || error.code === 'server_tool_not_allowed') return `${server.appUrl}/provider-keys`;
      if (error.code === 'budget_exceeded' || error.code === 'guardrail_denied') return `${server.appUrl}/guardrails`;
      return error.code === 'inactive_account' ? `${server.appUrl}/deactivated` : `${server.appUrl}/keys`;
    case 'apiKeyPrefix':
      return API_KEY_PREFIX;
    case 'onboarding':
      return [
        { step: 1, action: 'Create an account', url: server.appUrl },
        { step: 2, action: `Generate an API key (it starts with ${API_KEY_PREFIX})`, url: `${server.appUrl}/keys` },
        { step: 3, action: 'Set your client base URL and send the key as a Bearer token', baseUrl: `${server.baseUrl}/v1` },
      ];
    case 'upgradeUrl':
      // Absent on the top plan, or when no plan above gives what ran out.
      return error.upgradePlan === null ? undefined : `${server.appUrl}/checkout?plan=${encodeURIComponent(error.upgradePlan)}`;
    case 'billingUrl':
      return `${server.appUrl}/billing`;
    case 'supportUrl':
      return server.supportUrl;
    case 'catalogUrl':
      return `${server.baseUrl}/model-catalog`;
  }
}
