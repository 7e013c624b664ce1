import type { H3Event } from 'h3';
import { describe, expect, it } from 'vitest';
import { KeyService } from '../../../src/accounts/key-service.js';
import { generateApiKey, hashApiKey } from '../../../src/core/api-key.js';
import { RequestState } from '../../../src/http/request-context.js';
import { createAuthenticateStage } from '../../../src/http/stages/authenticate.js';
import type { Store } from '../../../src/stores/store.js';

const SECRET = 'unit-test-secret-0123456789';

/** A store that knows one key, and counts how often the key service asks it. */
function storeWith(key: string, accountStatus = 'active') {
  const hash = hashApiKey(key, SECRET);
  let reads = 0;
  const store = {
    findApiKeyByHash: async (asked: string) => {
      reads++;
      if (asked !== hash) return null;
      return { key: { id: 'key_1', hash, revokedAt: null, expiresAt: null, kind: 'inference', disabledAt: null }, account: { id: 'acct_1', status: accountStatus } };
    },
  } as unknown as Store;
  return { store, reads: () => reads };
}

function eventWith(authorization: string): H3Event {
  return { node: { req: { rawHeaders: ['Authorization', authorization] } } } as unknown as H3Event;
}

describe('the authenticate stage', () => {
  const key = generateApiKey();

  it('asks the store once, then authenticates a key the cache holds synchronously, with no promise', async () => {
    const { store, reads } = storeWith(key);
    const stage = createAuthenticateStage(new KeyService({ store, clock: { now: () => 0 }, secret: SECRET, cacheTtlMs: 60_000 }));
    const first = new RequestState('req_1', 0);
    const pending = stage(eventWith(`Bearer ${key}`), first);
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe(first);
    expect(first.caller).toEqual({ keyId: 'key_1', accountId: 'acct_1', management: false });

    const second = new RequestState('req_2', 0);
    expect(stage(eventWith(`Bearer ${key}`), second)).toBeUndefined();
    expect(second.caller).toEqual({ keyId: 'key_1', accountId: 'acct_1', management: false });
    expect(reads()).toBe(1);
  });

  it('refuses a cached key of an account no longer active, and an unknown key, as verify does', async () => {
    const { store } = storeWith(key, 'deactivated');
    const keys = new KeyService({ store, clock: { now: () => 0 }, secret: SECRET, cacheTtlMs: 60_000 });
    const stage = createAuthenticateStage(keys);
    await expect(stage(eventWith(`Bearer ${key}`), new RequestState('req_3', 0))).rejects.toMatchObject({ code: 'inactive_account' });
    expect(() => stage(eventWith(`Bearer ${key}`), new RequestState('req_4', 0))).toThrow(expect.objectContaining({ code: 'inactive_account' }));
    await expect(stage(eventWith(`Bearer ${generateApiKey()}`), new RequestState('req_5', 0))).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(() => stage(eventWith('Bearer not-a-key'), new RequestState('req_6', 0))).toThrow(expect.objectContaining({ code: 'malformed_api_key' }));
  });

  it('keeps a key it verified only as the exact value presented: a changed key is judged afresh, and a revocation seen after the TTL refuses it', async () => {
    let revokedAt: string | null = null;
    let reads = 0;
    const hash = hashApiKey(key, SECRET);
    const store = {
      findApiKeyByHash: async (asked: string) => {
        reads++;
        if (asked !== hash) return null;
        return { key: { id: 'key_1', hash, revokedAt, expiresAt: null, kind: 'inference', disabledAt: null }, account: { id: 'acct_1', status: 'active' } };
      },
    } as unknown as Store;
    // Not 0: lru-cache takes an entry set at time 0 for one without a TTL.
    let now = 1_000;
    const stage = createAuthenticateStage(new KeyService({ store, clock: { now: () => now }, secret: SECRET, cacheTtlMs: 60_000 }));
    await stage(eventWith(`Bearer ${key}`), new RequestState('req_7', 0));
    expect(stage(eventWith(`Bearer ${key}`), new RequestState('req_8', 0))).toBeUndefined();
    // One character changed: not the cached value, so it is parsed and checked afresh (its checksum fails).
    const other = key.slice(0, -7) + (key.at(-7) === 'a' ? 'b' : 'a') + key.slice(-6);
    expect(() => stage(eventWith(`Bearer ${other}`), new RequestState('req_9', 0))).toThrow(expect.objectContaining({ code: 'malformed_api_key' }));
    // Revoked by another process (the CLI): refused once the cache's TTL has passed.
    revokedAt = '2026-01-01T00:00:00.000Z';
    now = 61_001;
    const readsBefore = reads;
    await expect(stage(eventWith(`Bearer ${key}`), new RequestState('req_10', 0))).rejects.toMatchObject({ code: 'revoked_api_key' });
    expect(reads).toBe(readsBefore + 1);
    expect(() => stage(eventWith(`Bearer ${key}`), new RequestState('req_11', 0))).toThrow(expect.objectContaining({ code: 'revoked_api_key' }));
  });
});
