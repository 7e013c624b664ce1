import { randomUUID } from 'node:crypto';
import type { H3Event } from 'h3';
import type { RouterRequestContext } from '../request-context.js';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** First stage of every request: echo a sane incoming X-Request-Id or mint one, and expose it. */
export function assignRequestId(event: H3Event, now: number): RouterRequestContext {
  const incoming = event.node.req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : newRequestId();
  event.node.res.setHeader('x-request-id', requestId);
  const ctx: RouterRequestContext = { requestId, startedAt: now };
  event.context.router = ctx;
  return ctx;
}

/** A fresh request id: `req_` + 32 hex characters. */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}
