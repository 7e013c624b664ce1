/**
 * A RouterError in Anthropic's error shape, for `/v1/messages`: `{"type":"error","error":{"type",
 * "message",…},"request_id"}`. The status, headers (WWW-Authenticate, Retry-After, x-should-retry) and
 * guidance fields are the contract's (send-error.ts); only the envelope and the `type` vocabulary
 * differ, so the official Anthropic SDK raises the right class and Claude Code reads the message.
 */
import type { H3Event } from 'h3';
import type { ServerConfig } from '../config/types.js';
import type { ErrorType, RouterError } from '../core/errors.js';
import { errorBody, errorHeaders } from './send-error.js';

/** Anthropic's error types (wire-formats §4.4). */
export type MessagesErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

/** The router's error types in Anthropic's vocabulary (the table in docs/api.md#messages-errors). */
const TYPE_OF_ROUTER_TYPE: Readonly<Record<ErrorType, MessagesErrorType>> = {
  invalid_request_error: 'invalid_request_error',
  authentication_error: 'authentication_error',
  permission_error: 'permission_error',
  not_found_error: 'not_found_error',
  rate_limit_error: 'rate_limit_error',
  insufficient_quota: 'rate_limit_error',
  upstream_error: 'api_error',
  server_error: 'api_error',
  edge_rejected: 'permission_error',
};

/** By status, for what an upstream answered and was passed through (its own 4xx, a timeout, an overload). */
const TYPE_OF_STATUS: Readonly<Record<number, MessagesErrorType>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function messagesErrorType(error: RouterError): MessagesErrorType {
  if (error.code === 'spend_cap_reached' || error.code === 'budget_exceeded') return 'billing_error';
  if (error.code === 'request_too_large') return 'request_too_large';
  if (error.code === 'upstream_rejected_request' || error.code === 'all_upstreams_failed') return upstreamErrorType(error.status, error.wire?.code ?? null);
  return TYPE_OF_ROUTER_TYPE[error.type];
}

/** What an upstream failed with (an error response passed on, or an error inside a committed stream). */
export function upstreamErrorType(status: number, code: string | null | undefined): MessagesErrorType {
  if (code === 'overloaded') return 'overloaded_error';
  return TYPE_OF_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export interface MessagesErrorBody {
  type: 'error';
  error: { type: MessagesErrorType; message: string; [field: string]: unknown };
  request_id: string | null;
}

/** The contract's error fields (code, param, guidance links, details) stay inside `error`; the SDK ignores what it does not know. */
export function messagesErrorBody(error: RouterError, server: ServerConfig, requestId: string | null): MessagesErrorBody {
  const { message, type: _openAiType, ...fields } = errorBody(error, server).error;
  return { type: 'error', error: { type: messagesErrorType(error), message, ...fields }, request_id: requestId };
}

/**
 * Claude Code and the SDK retry 401s and 429s (Claude Code up to ten times) unless told not to: an
 * authentication failure never clears by waiting, so it says so, as the permanent quota refusals do.
 */
export function sendMessagesError(event: H3Event, error: RouterError, server: ServerConfig): string {
  const res = event.node.res;
  res.statusCode = error.status;
  for (const [name, value] of Object.entries(errorHeaders(error))) res.setHeader(name, value);
  if (error.type === 'authentication_error') res.setHeader('x-should-retry', 'false');
  res.setHeader('content-type', 'application/json');
  return JSON.stringify(messagesErrorBody(error, server, event.context.router?.requestId ?? null));
}
