import type { H3Event } from 'h3';
import { randomHex } from '../../core/random-hex.js';
import { RequestState } from '../request-context.js';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Before any stage (the app's onRequest, every request): echoes a sane incoming X-Request-Id or mints
 * one, and makes the request's one object (`Received`), which the stages then extend.
 */
export function assignRequestId(event: H3Event, now: number): RequestState {
  const requestId = requestIdOf(event.node.req.headers['x-request-id'], now);
  event.node.res.setHeader('x-request-id', requestId);
  const request = new RequestState(requestId, now);
  event.context.router = request;
  return request;
}

/** The incoming X-Request-Id when it is sane, else a fresh one. */
export function requestIdOf(incoming: string | string[] | undefined, now: number = Date.now()): string {
  return typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : newRequestId(now);
}

/**
 * A fresh request id: `req_` + 32 hex digits, the time (ms, 12 digits) then 80 random bits. New ids sort
 * after old ones, so the usage ledger's index of request ids grows at its end instead of at random places.
 */
export function newRequestId(now: number = Date.now()): string {
  return `req_${Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12)}${randomHex(10)}`;
}
