/** Responses of the web pages: security headers on every page, bounded form bodies, redirects. */
import { getRequestHeader, getRequestIP, sendRedirect, setResponseHeader, setResponseStatus, type H3Event } from 'h3';
import { clientAddress, type ProxyTrust } from '../core/proxy-trust.js';
import { readBoundedBody, type BodyReadErrors } from '../core/read-bounded-body.js';

/** Strict: no inline script or style, nothing from other origins, never framed. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function setSecurityHeaders(event: H3Event, options: { cacheable?: boolean } = {}): void {
  setResponseHeader(event, 'content-security-policy', CSP);
  setResponseHeader(event, 'x-content-type-options', 'nosniff');
  setResponseHeader(event, 'x-frame-options', 'DENY');
  // Links never tell another site which page (or which single-use link) they came from. Not
  // `no-referrer`: with it browsers send `Origin: null` on form posts, and the CSRF check needs the origin.
  setResponseHeader(event, 'referrer-policy', 'same-origin');
  setResponseHeader(event, 'cross-origin-opener-policy', 'same-origin');
  if (!options.cacheable) setResponseHeader(event, 'cache-control', 'no-store');
}

export function sendHtml(event: H3Event, html: string, options: { status?: number; cacheable?: boolean } = {}): string {
  setSecurityHeaders(event, options);
  if (options.status) setResponseStatus(event, options.status);
  setResponseHeader(event, 'content-type', 'text/html; charset=utf-8');
  return html;
}

/** 303: after a POST the browser GETs the next page, so a reload never repeats the action. */
export function redirectAfterPost(event: H3Event, location: string): Promise<void> {
  setSecurityHeaders(event);
  return sendRedirect(event, location, 303);
}

export function redirect(event: H3Event, location: string): Promise<void> {
  setSecurityHeaders(event);
  return sendRedirect(event, location, 302);
}

export const FORM_LIMIT_BYTES = 16 * 1024;

export class BodyTooLargeError extends Error {}

const READ_ERRORS: BodyReadErrors = {
  tooLarge: () => new BodyTooLargeError(),
  aborted: () => new Error('the client closed the connection while sending the request body'),
};

/** The raw body, read up to `limitBytes` (anything larger is refused, never buffered; the API's body stage reads the same way). */
export function readBodyUpTo(event: H3Event, limitBytes: number): Promise<Buffer> {
  return readBoundedBody(event.node.req, limitBytes, READ_ERRORS);
}

/** A urlencoded form body, read up to 16 KiB (or `limitBytes`, for the one form that carries more: the playground's chat). */
export async function readForm(event: H3Event, limitBytes = FORM_LIMIT_BYTES): Promise<Record<string, string>> {
  const type = getRequestHeader(event, 'content-type') ?? '';
  const body = await readBodyUpTo(event, limitBytes);
  if (!type.startsWith('application/x-www-form-urlencoded')) return {};
  // Null prototype: a field named `constructor` or `__proto__` is a field like any other, never Object's.
  const form: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) form[name] ??= value;
  return form;
}

/** The client's address: the connection's peer, or X-Forwarded-For read through `trust`'s proxies only. */
export function clientAddressOf(trust: ProxyTrust): (event: H3Event) => string | null {
  return (event) => clientAddress(getRequestIP(event) ?? null, getRequestHeader(event, 'x-forwarded-for'), trust);
}

/** True when the client asked for HTML before JSON (browsers do; SDKs and curl do not). */
export function wantsHtml(event: H3Event): boolean {
  const accept = getRequestHeader(event, 'accept') ?? '';
  const html = accept.indexOf('text/html');
  if (html === -1) return false;
  const json = accept.indexOf('application/json');
  return json === -1 || html < json;
}
