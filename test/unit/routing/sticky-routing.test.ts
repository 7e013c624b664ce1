/**
 * Sticky routing for prompt caches: the provider that served a cached prefix is tried first next time,
 * only among the candidates given (never outside what the route and the caller allow), in bounded memory.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/formats/openai-chat.js';
import { withCacheBreakpoints } from '../../../src/routing/prompt-cache-breakpoints.js';
import { cachePrefixKey, createStickyRouting } from '../../../src/routing/sticky-routing.js';

const candidate = (id: string) => ({ provider: { id }, label: id });

describe('sticky routing', () => {
  it('puts the provider that served the prefix first and keeps the rest in order', () => {
    const sticky = createStickyRouting();
    const ordered = ['openai', 'anthropic', 'gemini'].map(candidate);
    expect(sticky.prefer('k', ordered).map((c) => c.label)).toEqual(['openai', 'anthropic', 'gemini']);
    sticky.remember('k', 'anthropic');
    expect(sticky.prefer('k', ordered).map((c) => c.label)).toEqual(['anthropic', 'openai', 'gemini']);
    expect(sticky.prefer('other', ordered).map((c) => c.label)).toEqual(['openai', 'anthropic', 'gemini']);
  });

  it('forgets a prefix after its TTL', () => {
    let now = 5000;
    const sticky = createStickyRouting({ ttlMs: 1000, now: () => now });
    sticky.remember('k', 'gemini');
    expect(sticky.prefer('k', ['openai', 'gemini'].map(candidate))[0]!.label).toBe('gemini');
    now = 6001;
    expect(sticky.prefer('k', ['openai', 'gemini'].map(candidate))[0]!.label).toBe('openai');
  });

  it('property: never routes outside the candidates given, and memory stays bounded', () => {
    const providers = fc.constantFrom('openai', 'anthropic', 'gemini', 'groq', 'mistral');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 4 }), providers), { maxLength: 200 }),
        fc.uniqueArray(providers, { minLength: 0, maxLength: 5 }),
        fc.string({ maxLength: 4 }),
        (served, allowed, key) => {
          const sticky = createStickyRouting({ entries: 16 });
          for (const [k, provider] of served) sticky.remember(k, provider);
          expect(sticky.size).toBeLessThanOrEqual(16);
          const given = allowed.map(candidate);
          const out = sticky.prefer(key, given);
          expect([...out].sort((a, b) => a.label.localeCompare(b.label))).toEqual([...given].sort((a, b) => a.label.localeCompare(b.label)));
        },
      ),
    );
  });
});

describe('the cached prefix key', () => {
  const base: ChatRequest = { model: 'router/frontier', messages: [{ role: 'system', content: 'Rules' }, { role: 'user', content: 'Hi' }] };

  it('is absent without a breakpoint or prompt_cache_key', () => {
    expect(cachePrefixKey('acct', 'router/frontier', base)).toBeUndefined();
  });

  it('is the same for later turns of one conversation and differs between accounts', () => {
    const turn1 = withCacheBreakpoints(base);
    const turn2 = withCacheBreakpoints({ ...base, messages: [...base.messages, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'More' }] });
    expect(cachePrefixKey('acct', 'r', turn1)).toBe(cachePrefixKey('acct', 'r', turn2));
    expect(cachePrefixKey('acct', 'r', turn1)).not.toBe(cachePrefixKey('other', 'r', turn1));
    expect(cachePrefixKey('acct', 'r', { ...base, prompt_cache_key: 'thread-1' })).toBe(cachePrefixKey('acct', 'r', { ...base, messages: [], prompt_cache_key: 'thread-1' }));
  });
});

describe('promptCaching: auto breakpoints', () => {
  it('on the last system message and the last function tool', () => {
    const chat = withCacheBreakpoints({
      model: 'm',
      messages: [{ role: 'system', content: 'A' }, { role: 'developer', content: 'B' }, { role: 'user', content: 'Q' }],
      tools: [{ type: 'function', function: { name: 'x' } }, { type: 'function', function: { name: 'y' } }],
    });
    expect(chat.messages.map((m) => m.cache_control)).toEqual([undefined, { type: 'ephemeral' }, undefined]);
    expect(chat.tools!.map((t) => t.cache_control)).toEqual([undefined, { type: 'ephemeral' }]);
  });

  it("leaves a request with the client's own breakpoint exactly as it was", () => {
    const own: ChatRequest = { model: 'm', messages: [{ role: 'system', content: [{ type: 'text', text: 'A', cache_control: { type: 'ephemeral', ttl: '1h' } }] }, { role: 'user', content: 'Q' }] };
    expect(withCacheBreakpoints(own)).toBe(own);
  });
});
