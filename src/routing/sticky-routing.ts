/**
 * Sticky routing for prompt caches: a provider's cache lives with that provider, so a conversation that
 * failed over (or was spread by tier weights) to another one pays its whole prefix again there. The
 * provider that last served a cacheable prefix is tried first for the next request with the same prefix,
 * while it stays healthy (an open circuit is skipped by the failover loop as always, and whoever serves
 * instead becomes the one remembered). It only reorders the candidates it is given, so it never routes
 * outside what the route and the caller's preferences allow.
 *
 * The key is a hash of the account, the route and the cached prefix (the client's `prompt_cache_key`
 * when it sent one, else the messages and tools up to the last cache breakpoint); memory is bounded
 * (an LRU with a TTL about as long as the longest cache lifetime, Anthropic's one hour).
 */
import { createHash } from 'node:crypto';
import { createBoundedCache } from '../core/bounded-cache.js';
import type { ChatRequest } from '../formats/openai-chat.js';
import type { ResponsesRequest } from '../formats/openai-responses.js';
import { hasBreakpoint, messageHasBreakpoint } from './prompt-cache-breakpoints.js';

export interface StickyRouting {
  /** `ordered` with the remembered provider's candidates first, the rest in their order; never adds or drops one. */
  prefer<T extends { provider: { id: string } }>(key: string, ordered: readonly T[]): T[];
  /** `providerId` served the prefix `key`: the next request with it goes there first. */
  remember(key: string, providerId: string): void;
  /** How many prefixes are remembered (bounded by `entries`). */
  readonly size: number;
}

export interface StickyRoutingOptions {
  entries?: number;
  ttlMs?: number;
  now?: () => number;
}

export function createStickyRouting(options: StickyRoutingOptions = {}): StickyRouting {
  const memory = createBoundedCache<string, string>({ entries: options.entries ?? 50_000, ttlMs: options.ttlMs ?? 60 * 60_000, ...(options.now ? { now: options.now } : {}) });
  return {
    prefer(key, ordered) {
      const held = memory.get(key);
      if (held === undefined) return [...ordered];
      return [...ordered.filter((c) => c.provider.id === held), ...ordered.filter((c) => c.provider.id !== held)];
    },
    remember(key, providerId) {
      if (memory.get(key) !== providerId) memory.set(key, providerId);
    },
    get size() {
      return memory.size;
    },
  };
}

/**
 * The sticky key of a chat request, or undefined when nothing in it is cached (no breakpoint, no
 * prompt_cache_key): such requests keep the route's own order.
 */
export function cachePrefixKey(accountId: string, routeId: string, chat: ChatRequest): string | undefined {
  if (typeof chat.prompt_cache_key === 'string' && chat.prompt_cache_key !== '') return keyOf(accountId, routeId, `key:${chat.prompt_cache_key}`);
  if (!hasBreakpoint(chat)) return undefined;
  const lastMarked = chat.messages.findLastIndex(messageHasBreakpoint);
  return keyOf(accountId, routeId, `prefix:${JSON.stringify({ tools: chat.tools ?? [], messages: chat.messages.slice(0, lastMarked + 1) })}`);
}

function keyOf(accountId: string, routeId: string, what: string): string {
  return createHash('sha256').update(accountId).update('\u0000').update(routeId).update('\u0000').update(what).digest('base64url');
}

/**
 * The sticky key of a Responses request: its `prompt_cache_key` (Codex sends one per conversation), or
 * with `promptCaching: auto` its instructions and tools, the prefix auto's breakpoints cache.
 */
export function responsesCacheKey(accountId: string, routeId: string, request: ResponsesRequest, auto: boolean): string | undefined {
  if (typeof request.prompt_cache_key === 'string' && request.prompt_cache_key !== '') return keyOf(accountId, routeId, `key:${request.prompt_cache_key}`);
  if (!auto || (!request.instructions && !request.tools?.length)) return undefined;
  return keyOf(accountId, routeId, `responses:${JSON.stringify({ instructions: request.instructions ?? null, tools: request.tools ?? [] })}`);
}
