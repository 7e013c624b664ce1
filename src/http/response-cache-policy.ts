/**
 * Whether a request uses the response cache (docs/caching.md), from its headers, its route profile
 * and its body: opt-in by `X-Router-Cache: true` or OpenRouter's `X-OpenRouter-Cache: true`, or by the
 * profile's `responseCache` in routes.yaml (a request's `false` turns it off); `-TTL` sets the entry's
 * lifetime, `-Clear: true` drops the entry first. A request that asks for zero data retention
 * (`provider.zdr: true`) is never cached, whatever asked for it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteProfileConfig } from '../config/types.js';
import { RouterError } from '../core/errors.js';
import type { AccountCachePolicy } from '../stores/response-cache-store.js';

/** The longest TTL a request may name, as OpenRouter bounds it (24 hours). */
export const MAX_CACHE_TTL_SECONDS = 86_400;

export type CacheDecision =
  | { use: false; bypassed: 'zdr' | 'account_policy' | 'private_user' | undefined }
  | { use: true; ttlSeconds: number; clear: boolean };

const OFF: CacheDecision = { use: false, bypassed: undefined };

/** Fields by which a body names the end user it is about (OpenAI `user`, `safety_identifier`; Anthropic `metadata.user_id`). */
export function namesEndUser(body: Record<string, unknown>): boolean {
  const metadata = body.metadata;
  const metadataUser = metadata !== null && typeof metadata === 'object' && typeof (metadata as Record<string, unknown>).user_id === 'string';
  return typeof body.user === 'string' || typeof body.safety_identifier === 'string' || metadataUser;
}


export function cacheDecision(headers: IncomingHttpHeaders, route: RouteProfileConfig | undefined, body: Record<string, unknown>, defaultTtlSeconds: number): CacheDecision {
  const asked = flag(headers, 'x-router-cache') ?? flag(headers, 'x-openrouter-cache');
  const profile = route?.responseCache;
  const wanted = asked ?? profile?.enabled ?? false;
  if (!wanted) return OFF;
  if (asksZeroRetention(body)) return { use: false, bypassed: 'zdr' };
  const ttlSeconds = ttl(headers, 'x-router-cache-ttl') ?? ttl(headers, 'x-openrouter-cache-ttl') ?? profile?.ttlSeconds ?? defaultTtlSeconds;
  const clear = (flag(headers, 'x-router-cache-clear') ?? flag(headers, 'x-openrouter-cache-clear')) === true;
  return { use: true, ttlSeconds, clear };
}

/** The account's rule applied to a decision to cache. */
export function applyAccountPolicy(decision: CacheDecision, policy: AccountCachePolicy, body: Record<string, unknown>): CacheDecision {
  if (!decision.use) return decision;
  if (policy === 'never') return { use: false, bypassed: 'account_policy' };
  if (policy === 'no_user_data' && namesEndUser(body)) return { use: false, bypassed: 'private_user' };
  return decision;
}

function asksZeroRetention(body: Record<string, unknown>): boolean {
  const provider = body.provider;
  return provider !== null && typeof provider === 'object' && (provider as Record<string, unknown>).zdr === true;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function flag(headers: IncomingHttpHeaders, name: string): boolean | undefined {
  const value = headerValue(headers, name)?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new RouterError('invalid_request', `The ${name} header must be true or false.`, { param: name });
}

function ttl(headers: IncomingHttpHeaders, name: string): number | undefined {
  const value = headerValue(headers, name)?.trim();
  if (value === undefined || value === '') return undefined;
  const seconds = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= 1 && seconds <= MAX_CACHE_TTL_SECONDS)) {
    throw new RouterError('invalid_request', `The ${name} header must be a whole number of seconds from 1 to ${MAX_CACHE_TTL_SECONDS}.`, { param: name });
  }
  return seconds;
}
