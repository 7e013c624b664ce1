/**
 * Redaction for anything that leaves the router for support: configuration with every credential
 * masked, and a last pass over any text for the shapes secrets take (keys, tokens, private keys), so
 * one missed field cannot leak. Pure.
 */
import { Secret } from '../config/secret.js';

export const REDACTED = '[redacted]';

// Shapes of credentials: router keys, provider API keys, Google API keys and OAuth access tokens,
// GitHub tokens, JWTs (OAuth id/access tokens), PEM private keys, bearer headers.
const SECRET_SHAPES: readonly RegExp[] = [
  /sk_router_[A-Za-z0-9]{8,}/g,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\bya29\.[0-9A-Za-z._-]+/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
];

/** Header names whose values are protocol versions, not credentials. */
const HARMLESS_HEADER = /-(version|beta)$/i;
const SECRET_NAME = /(secret|password|passwd|credential|cookie|session|private)|token$|api_?key$|managedkey$/i;

/** Replace every secret-shaped run in a string. */
export function scrubText(text: string): string {
  let scrubbed = text;
  for (const shape of SECRET_SHAPES) scrubbed = scrubbed.replace(shape, REDACTED);
  return scrubbed;
}

/** A URL with its password and every query value masked (connection strings and API URLs carry credentials there). */
export function maskUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  if (!url.host || (!url.password && url.search === '')) return text;
  if (url.password) url.password = REDACTED;
  for (const name of [...url.searchParams.keys()]) url.searchParams.set(name, REDACTED);
  return url.toString();
}

/**
 * A JSON copy of configuration with credentials masked: Secret values, values under secret-sounding
 * names, provider header values (except versions), passwords and query values of URLs; then every
 * remaining string scrubbed of secret shapes.
 */
export function maskConfig(value: unknown, name = ''): unknown {
  if (value instanceof Secret) return REDACTED;
  if (typeof value === 'string') {
    if (SECRET_NAME.test(name) && value !== '') return REDACTED;
    return scrubText(maskUrl(value));
  }
  if (Array.isArray(value)) return value.map((item) => maskConfig(item, name));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        if (name === 'headers' && typeof item === 'string') return [key, HARMLESS_HEADER.test(key) ? scrubText(item) : REDACTED];
        return [key, maskConfig(item, key)];
      }),
    );
  }
  return value;
}

/** Scrub every string in a JSON-able value (the whole bundle's last pass). */
export function scrubDeep<T>(value: T): T {
  if (typeof value === 'string') return scrubText(value) as T;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubDeep(item)])) as T;
  return value;
}
