/**
 * The behaviour every Store must show, run against SQLite and PostgreSQL. `makeStore` returns a fresh,
 * migrated, empty store driven by the given clock; the suite closes it after each test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, lastFour } from '../../src/core/api-key.js';
import type { Clock } from '../../src/core/clock.js';
import { NotFoundInStoreError, type Account, type QuotaAdmitInput, type Store } from '../../src/stores/store.js';

export type MakeStore = (clock: Clock) => Promise<Store>;

export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const START = Date.UTC(2026, 10, 15, 12, 0, 0);
const START_ISO = '2026-11-15T12:00:00.000Z';
const LIMITS = { free: 3, pro: 5 };

function newKeyMaterial(name: string | null = null) {
  const plaintext = generateApiKey();
  return { plaintext, input: { name, hash: hashApiKey(plaintext), last4: lastFour(plaintext) } };
}

/** Fires `calls` admissions at once, spread over `stores`, and returns how many were admitted. */
export async function admitConcurrently(stores: readonly Store[], input: QuotaAdmitInput, calls: number): Promise<number> {
  const decisions = await Promise.all(Array.from({ length: calls }, (_, i) => stores[i % stores.length]!.admitQuota(input)));
  const used = decisions.filter((decision) => decision.admitted).map((decision) => decision.used);
  // Each admission saw a distinct count: no two callers were handed the same slot.
  expect(new Set(used).size).toBe(used.length);
  return used.length;
}

export function runStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name} store contract`, () => {
    let clock: ManualClock;
    let store: Store;
    const account = (plan = 'free'): Promise<Account> => store.createAccount({ email: 'dev@example.com', plan }, 'cli');
    const admit = (accountId: string, weight = 1, period = '2026-11') => store.admitQuota({ accountId, period, weight, limitsByPlan: LIMITS });
    const hold = (accountId: string, weight = 1, period = '2026-11') => store.holdQuota({ accountId, period, weight, limitsByPlan: LIMITS });
    /** Both columns of one counter, read through the interface: held is what committed adds to used. */
    const columns = async (accountId: string, period = '2026-11') => {
      const used = await store.readQuota(accountId, period);
      return { used, held: (await store.readQuotaCommitted(accountId, period)) - used };
    };

    beforeEach(async () => {
      clock = new ManualClock(START);
      store = await makeStore(clock);
    });
    afterEach(async () => {
      await store.close();
    });

    describe('accounts', () => {
      it('creates an active account with a generated id and the clock time', async () => {
        const created = await account('pro');
        expect(created).toEqual({ id: expect.stringMatching(/^acct_[0-9a-f]{24}$/), email: 'dev@example.com', name: null, plan: 'pro', status: 'active', createdAt: START_ISO });
        expect(await store.getAccount(created.id)).toEqual(created);
        expect(await store.getAccount('acct_missing')).toBeNull();
      });

      it('lists accounts oldest first', async () => {
        const first = await account();
        clock.advance(1000);
        const second = await account('pro');
        expect((await store.listAccounts()).map((a) => a.id)).toEqual([first.id, second.id]);
      });

      it('changes the plan and deactivates', async () => {
        const created = await account();
        expect(await store.setAccountPlan(created.id, 'pro', 'cli')).toEqual({ ...created, plan: 'pro' });
        expect(await store.deactivateAccount(created.id, 'api')).toEqual({ ...created, plan: 'pro', status: 'inactive' });
        expect((await store.getAccount(created.id))?.status).toBe('inactive');
      });

      it("keeps the account's response-cache rule (allow until set), audited", async () => {
        const created = await account();
        expect(await store.getResponseCachePolicy(created.id)).toBe('allow');
        await store.setResponseCachePolicy(created.id, 'no_user_data', 'cli');
        expect(await store.getResponseCachePolicy(created.id)).toBe('no_user_data');
        await store.setResponseCachePolicy(created.id, 'never', 'cli');
        expect(await store.getResponseCachePolicy(created.id)).toBe('never');
        const events = await store.listAuditEvents({ accountId: created.id });
        expect(events.filter((event) => event.action === 'account.set_response_cache').map((event) => event.details)).toEqual(
          expect.arrayContaining([{ from: 'allow', to: 'no_user_data' }, { from: 'no_user_data', to: 'never' }]),
        );
        await expect(store.setResponseCachePolicy('acct_missing', 'never', 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
      });

      it('rejects unknown account ids with NotFoundInStoreError', async () => {
        const key = newKeyMaterial().input;
        await expect(store.setAccountPlan('acct_missing', 'pro', 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
        await expect(store.deactivateAccount('acct_missing', 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
        await expect(store.createApiKey({ accountId: 'acct_missing', ...key }, 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
        const providerKey = { accountId: 'acct_missing', providerId: 'openai', sealed: 'v1.a.b.c', last4: 'abcd' };
        await expect(store.setProviderKey(providerKey, 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
        await expect(admit('acct_missing')).rejects.toBeInstanceOf(NotFoundInStoreError);
      });
    });

    describe('api keys', () => {
      it('stores only the hash and last four characters', async () => {
        const owner = await account();
        const { input } = newKeyMaterial('laptop');
        const key = await store.createApiKey({ accountId: owner.id, ...input }, 'cli');
        expect(key).toEqual({
          id: expect.stringMatching(/^key_[0-9a-f]{24}$/),
          accountId: owner.id,
          name: 'laptop',
          prefix: 'sk_router_',
          last4: input.last4,
          hash: input.hash,
          createdAt: START_ISO,
          revokedAt: null,
          expiresAt: null,
          kind: 'inference',
          disabledAt: null,
          updatedAt: null,
          workspaceId: null,
          personId: null,
        });
        expect(await store.getApiKey(key.id)).toEqual(key);
        expect(await store.getApiKey('key_missing')).toBeNull();
      });

      it('keeps a management key management through rotation, and renames, disables and enables a key with one audit event each', async () => {
        const owner = await account();
        const admin = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial('admin').input, kind: 'management' }, 'cli');
        expect(admin.kind).toBe('management');
        const { created } = await store.rotateApiKey(admin.id, newKeyMaterial('admin').input, 0, 'cli');
        expect(created.kind).toBe('management');
        const disabled = await store.updateApiKey(created.id, { disabled: true, name: 'ops' }, 'key:key_x');
        expect(disabled).toMatchObject({ name: 'ops', disabledAt: START_ISO, updatedAt: START_ISO, kind: 'management' });
        expect((await store.updateApiKey(created.id, { disabled: true }, 'key:key_x')).disabledAt).toBe(START_ISO);
        const enabled = await store.updateApiKey(created.id, { disabled: false }, 'key:key_x');
        expect(enabled).toMatchObject({ name: 'ops', disabledAt: null });
        const updates = (await store.listAuditEvents({ accountId: owner.id })).filter((event) => event.action === 'key.update');
        expect(updates.map((event) => [event.actor, event.keyId, event.details])).toEqual(
          expect.arrayContaining([
            ['key:key_x', created.id, { name: 'ops', disabled: true }],
            ['key:key_x', created.id, { disabled: false }],
          ]),
        );
        expect(updates).toHaveLength(3);
        await expect(store.updateApiKey('key_missing', { disabled: true }, 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
      });

      it('finds a key with its account by hash, whatever their status', async () => {
        const owner = await account();
        const { input } = newKeyMaterial();
        const key = await store.createApiKey({ accountId: owner.id, ...input }, 'cli');
        expect(await store.findApiKeyByHash(input.hash)).toEqual({ key, account: owner });
        expect(await store.findApiKeyByHash(hashApiKey(generateApiKey()))).toBeNull();
        const revoked = await store.revokeApiKey(key.id, 'cli');
        const inactive = await store.deactivateAccount(owner.id, 'cli');
        expect(await store.findApiKeyByHash(input.hash)).toEqual({ key: revoked, account: inactive });
      });

      it("lists only the account's keys, oldest first", async () => {
        const owner = await account();
        const other = await account();
        const first = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial('a').input }, 'cli');
        await store.createApiKey({ accountId: other.id, ...newKeyMaterial('x').input }, 'cli');
        clock.advance(1);
        const second = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial('b').input }, 'cli');
        expect(await store.listApiKeys(owner.id)).toEqual([first, second]);
      });

      it('rotation with grace 0 revokes the old key at once', async () => {
        const owner = await account();
        const old = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial('ci').input }, 'cli');
        clock.advance(60_000);
        const replacement = newKeyMaterial('ci-2').input;
        const { revoked, created } = await store.rotateApiKey(old.id, replacement, 0, 'cli');
        expect(revoked).toEqual({ ...old, revokedAt: '2026-11-15T12:01:00.000Z' });
        expect(created).toMatchObject({ accountId: owner.id, name: 'ci-2', hash: replacement.hash, createdAt: '2026-11-15T12:01:00.000Z', revokedAt: null });
        expect(created.id).not.toBe(old.id);
        expect(await store.getApiKey(old.id)).toEqual(revoked);
        expect((await store.findApiKeyByHash(replacement.hash))?.key).toEqual(created);
      });

      it('rotation with a grace period sets an expiry instead, and a second rotation never extends it', async () => {
        const owner = await account();
        const old = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial().input }, 'cli');
        const first = await store.rotateApiKey(old.id, newKeyMaterial().input, 300, 'cli');
        expect(first.revoked).toEqual({ ...old, expiresAt: '2026-11-15T12:05:00.000Z' });
        clock.advance(100_000);
        const second = await store.rotateApiKey(old.id, newKeyMaterial().input, 3600, 'cli');
        expect(second.revoked.expiresAt).toBe('2026-11-15T12:05:00.000Z');
        clock.advance(200_000);
        await expect(store.rotateApiKey(old.id, newKeyMaterial().input, 0, 'cli')).rejects.toThrow(`api key ${old.id} has already expired`);
      });

      it('refuses to rotate or revoke a revoked key, with a clear message', async () => {
        const owner = await account();
        const key = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial().input }, 'cli');
        expect((await store.revokeApiKey(key.id, 'cli')).revokedAt).toBe(START_ISO);
        await expect(store.revokeApiKey(key.id, 'cli')).rejects.toThrow(`api key ${key.id} is already revoked`);
        await expect(store.rotateApiKey(key.id, newKeyMaterial().input, 0, 'cli')).rejects.toThrow(`api key ${key.id} is already revoked`);
        await expect(store.rotateApiKey(key.id, newKeyMaterial().input, -1, 'cli')).rejects.toThrow('grace period');
      });

      it('rejects unknown key ids with NotFoundInStoreError', async () => {
        await expect(store.revokeApiKey('key_missing', 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
        await expect(store.rotateApiKey('key_missing', newKeyMaterial().input, 0, 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
      });

      it('a failed rotation changes nothing', async () => {
        const owner = await account();
        const old = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial().input }, 'cli');
        clock.advance(1);
        const other = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial().input }, 'cli');
        const eventsBefore = await store.listAuditEvents();
        // A replacement whose hash is already taken violates the unique index after the old key was touched.
        await expect(store.rotateApiKey(old.id, { name: null, hash: other.hash, last4: other.last4 }, 0, 'cli')).rejects.toThrow();
        expect(await store.getApiKey(old.id)).toEqual(old);
        expect(await store.listApiKeys(owner.id)).toEqual([old, other]);
        expect(await store.listAuditEvents()).toEqual(eventsBefore);
      });
    });

    describe('audit events', () => {
      it('records every mutation in order, newest first, filtered by account', async () => {
        const owner = await account();
        const bystander = await account();
        const key = await store.createApiKey({ accountId: owner.id, ...newKeyMaterial('ci').input }, 'cli');
        const { created } = await store.rotateApiKey(key.id, newKeyMaterial('ci').input, 60, 'api');
        await store.revokeApiKey(created.id, 'api');
        await store.setProviderKey({ accountId: owner.id, providerId: 'openai', sealed: 'v1.a.b.c', last4: 'wxyz' }, 'cli');
        await store.removeProviderKey(owner.id, 'openai', 'cli');
        expect(await store.removeProviderKey(owner.id, 'openai', 'cli')).toBe(false);
        await store.setAccountPlan(owner.id, 'pro', 'system');
        await store.deactivateAccount(owner.id, 'cli');

        const events = await store.listAuditEvents({ accountId: owner.id });
        expect(events.map((event) => [event.action, event.actor, event.keyId, event.details])).toEqual([
          ['account.deactivate', 'cli', null, { previousStatus: 'active' }],
          ['account.set_plan', 'system', null, { from: 'free', to: 'pro' }],
          ['provider_key.remove', 'cli', null, { providerId: 'openai' }],
          ['provider_key.set', 'cli', null, { providerId: 'openai' }],
          ['key.revoke', 'api', created.id, {}],
          ['key.rotate', 'api', key.id, { replacementKeyId: created.id, graceSeconds: 60 }],
          ['key.create', 'api', created.id, { name: 'ci', rotatedFrom: key.id }],
          ['key.create', 'cli', key.id, { name: 'ci' }],
          ['account.create', 'cli', null, { plan: 'free' }],
        ]);
        expect(events.every((event) => event.accountId === owner.id && event.at === START_ISO && /^evt_/.test(event.id))).toBe(true);
        expect((await store.listAuditEvents()).map((event) => event.accountId)).toContain(bystander.id);
        expect((await store.listAuditEvents({ limit: 2 })).map((event) => event.action)).toEqual(['account.deactivate', 'account.set_plan']);
      });

      it('never contains a key, a key hash or a sealed credential', async () => {
        const owner = await account();
        const material = newKeyMaterial();
        const rotated = newKeyMaterial();
        const key = await store.createApiKey({ accountId: owner.id, ...material.input }, 'cli');
        await store.rotateApiKey(key.id, rotated.input, 0, 'cli');
        const sealed = 'v1.c2VhbGVkLWl2.c2VhbGVkLXRhZw.c2VhbGVkLWNpcGhlcnRleHQ';
        await store.setProviderKey({ accountId: owner.id, providerId: 'anthropic', sealed, last4: 'zzzz' }, 'cli');
        const serialized = JSON.stringify(await store.listAuditEvents());
        for (const secret of [material.plaintext, material.input.hash, rotated.plaintext, rotated.input.hash, sealed]) {
          expect(serialized).not.toContain(secret);
        }
      });
    });

    describe('provider keys', () => {
      it('sets, replaces and lists provider keys by provider id', async () => {
        const owner = await account();
        const openai = await store.setProviderKey({ accountId: owner.id, providerId: 'openai', sealed: 'v1.one', last4: '1111' }, 'cli');
        expect(openai).toEqual({ accountId: owner.id, providerId: 'openai', sealed: 'v1.one', last4: '1111', createdAt: START_ISO, updatedAt: START_ISO });
        clock.advance(5000);
        const replaced = await store.setProviderKey({ accountId: owner.id, providerId: 'openai', sealed: 'v1.two', last4: '2222' }, 'cli');
        expect(replaced).toEqual({ ...openai, sealed: 'v1.two', last4: '2222', updatedAt: '2026-11-15T12:00:05.000Z' });
        const anthropic = await store.setProviderKey({ accountId: owner.id, providerId: 'anthropic', sealed: 'v1.three', last4: '3333' }, 'cli');
        expect(await store.listProviderKeys(owner.id)).toEqual([anthropic, replaced]);
      });

      it('removes a provider key once', async () => {
        const owner = await account();
        await store.setProviderKey({ accountId: owner.id, providerId: 'gemini', sealed: 'v1.g', last4: 'gggg' }, 'cli');
        expect(await store.removeProviderKey(owner.id, 'gemini', 'cli')).toBe(true);
        expect(await store.removeProviderKey(owner.id, 'gemini', 'cli')).toBe(false);
        expect(await store.listProviderKeys(owner.id)).toEqual([]);
      });
    });

    describe('monthly quota', () => {
      it('admits by weight up to the limit of the current plan, then rejects without counting', async () => {
        const owner = await account();
        expect(await admit(owner.id)).toEqual({ plan: 'free', status: 'active', admitted: true, used: 1, limit: 3 });
        expect(await admit(owner.id, 2)).toEqual({ plan: 'free', status: 'active', admitted: true, used: 3, limit: 3 });
        expect(await admit(owner.id)).toEqual({ plan: 'free', status: 'active', admitted: false, used: 3, limit: 3 });
        expect(await store.readQuota(owner.id, '2026-11')).toBe(3);
      });

      it('rejects a request heavier than what is left', async () => {
        const owner = await account();
        await admit(owner.id, 2);
        expect(await admit(owner.id, 2)).toMatchObject({ admitted: false, used: 2 });
        expect(await admit(owner.id, 1)).toMatchObject({ admitted: true, used: 3 });
      });

      it('refunds never drop below zero', async () => {
        const owner = await account();
        await admit(owner.id, 3);
        await store.refundQuota(owner.id, '2026-11', 1);
        expect(await store.readQuota(owner.id, '2026-11')).toBe(2);
        await store.refundQuota(owner.id, '2026-11', 5);
        expect(await store.readQuota(owner.id, '2026-11')).toBe(0);
        await store.refundQuota(owner.id, '2026-10', 1);
        expect(await store.readQuota(owner.id, '2026-10')).toBe(0);
      });

      it('keeps periods and accounts independent', async () => {
        const owner = await account();
        const other = await account();
        await admit(owner.id, 3);
        expect(await admit(owner.id, 1, '2026-12')).toMatchObject({ admitted: true, used: 1 });
        expect(await admit(other.id)).toMatchObject({ admitted: true, used: 1 });
        expect(await store.readQuota(owner.id, '2026-11')).toBe(3);
      });

      it('applies a plan change to the very next admission', async () => {
        const owner = await account();
        await admit(owner.id, 3);
        await store.setAccountPlan(owner.id, 'pro', 'cli');
        expect(await admit(owner.id)).toEqual({ plan: 'pro', status: 'active', admitted: true, used: 4, limit: 5 });
      });

      it('does not admit an inactive account and counts nothing', async () => {
        const owner = await account();
        await admit(owner.id);
        await store.deactivateAccount(owner.id, 'cli');
        expect(await admit(owner.id)).toEqual({ plan: 'free', status: 'inactive', admitted: false, used: 1, limit: 3 });
      });

      it('gives a plan missing from the limits a limit of 0', async () => {
        for (const plan of ['legacy', 'constructor']) {
          const owner = await account(plan);
          expect(await admit(owner.id)).toEqual({ plan, status: 'active', admitted: false, used: 0, limit: 0 });
        }
      });

      it('admits exactly the limit under 50 concurrent requests', async () => {
        const owner = await account();
        const input = { accountId: owner.id, period: '2026-11', weight: 1, limitsByPlan: { free: 20 } };
        expect(await admitConcurrently([store], input, 50)).toBe(20);
        expect(await store.readQuota(owner.id, '2026-11')).toBe(20);
      });
    });

    // The units a Redis quota gate reserves (held) and later settles as used: see stores/redis/create-redis-quota-gate.ts.
    describe('monthly quota held for a gate', () => {
      it('holds by weight with the same check as admission, without counting the units as used', async () => {
        const owner = await account();
        expect(await hold(owner.id, 2)).toEqual({ plan: 'free', status: 'active', admitted: true, used: 2, limit: 3 });
        expect(await columns(owner.id)).toEqual({ used: 0, held: 2 });
        // The reply's `used` is everything checked against the limit: used + held.
        expect(await hold(owner.id, 2)).toEqual({ plan: 'free', status: 'active', admitted: false, used: 2, limit: 3 });
        expect(await hold(owner.id, 1)).toEqual({ plan: 'free', status: 'active', admitted: true, used: 3, limit: 3 });
        expect(await hold(owner.id, 1)).toMatchObject({ admitted: false, used: 3 });
        expect(await columns(owner.id)).toEqual({ used: 0, held: 3 });
      });

      it('admission counts held units against the limit and reports used + held', async () => {
        const owner = await account();
        await hold(owner.id, 2);
        expect(await admit(owner.id)).toEqual({ plan: 'free', status: 'active', admitted: true, used: 3, limit: 3 });
        expect(await admit(owner.id)).toEqual({ plan: 'free', status: 'active', admitted: false, used: 3, limit: 3 });
        expect(await columns(owner.id)).toEqual({ used: 1, held: 2 });
        // And a hold sees units already used.
        expect(await hold(owner.id)).toMatchObject({ admitted: false, used: 3 });
      });

      it('holds against the current plan, never for an inactive account or a plan without a limit', async () => {
        const owner = await account();
        await admit(owner.id, 3);
        expect(await hold(owner.id)).toMatchObject({ plan: 'free', admitted: false, used: 3, limit: 3 });
        await store.setAccountPlan(owner.id, 'pro', 'cli');
        expect(await hold(owner.id, 2)).toEqual({ plan: 'pro', status: 'active', admitted: true, used: 5, limit: 5 });
        await store.refundQuota(owner.id, '2026-11', 3);
        await store.deactivateAccount(owner.id, 'cli');
        expect(await hold(owner.id)).toEqual({ plan: 'pro', status: 'inactive', admitted: false, used: 2, limit: 5 });
        const legacy = await account('legacy');
        expect(await hold(legacy.id)).toEqual({ plan: 'legacy', status: 'active', admitted: false, used: 0, limit: 0 });
        expect(await store.readQuotaCommitted(legacy.id, '2026-11')).toBe(0);
        await expect(hold('acct_missing')).rejects.toBeInstanceOf(NotFoundInStoreError);
      });

      it('settles held units as used, gives refunded ones back to held, and keeps periods apart', async () => {
        const owner = await account('pro');
        await hold(owner.id, 4);
        await hold(owner.id, 1, '2026-12');
        await store.settleQuota(owner.id, '2026-11', 3);
        expect(await columns(owner.id)).toEqual({ used: 3, held: 1 });
        await store.settleQuota(owner.id, '2026-11', -2);
        expect(await columns(owner.id)).toEqual({ used: 1, held: 3 });
        // Settling never changes used + held, so it never frees or takes room.
        expect(await store.readQuotaCommitted(owner.id, '2026-11')).toBe(4);
        expect(await columns(owner.id, '2026-12')).toEqual({ used: 0, held: 1 });
        // A period without a counter has nothing to settle.
        await store.settleQuota(owner.id, '2027-01', 2);
        expect(await columns(owner.id, '2027-01')).toEqual({ used: 0, held: 0 });
      });

      it('settling more than a column has never takes it below zero', async () => {
        const owner = await account('pro');
        await hold(owner.id, 2);
        await store.settleQuota(owner.id, '2026-11', 3);
        expect(await columns(owner.id)).toEqual({ used: 3, held: 0 });
        await store.settleQuota(owner.id, '2026-11', -5);
        expect(await columns(owner.id)).toEqual({ used: 0, held: 5 });
      });

      it('refunds take units from used only, never from held', async () => {
        const owner = await account('pro');
        await hold(owner.id, 2);
        await admit(owner.id, 2);
        await store.refundQuota(owner.id, '2026-11', 5);
        expect(await columns(owner.id)).toEqual({ used: 0, held: 2 });
      });

      it('never exceeds the limit under concurrent holds and admissions of mixed weights', async () => {
        const owner = await account();
        const base = { accountId: owner.id, period: '2026-11', limitsByPlan: { free: 20 } };
        // Every third call holds two units for a gate, the others admit one.
        const call = async (i: number) => {
          const weight = i % 3 === 0 ? 2 : 1;
          const decision = await (weight === 2 ? store.holdQuota({ ...base, weight }) : store.admitQuota({ ...base, weight }));
          return { ...decision, weight };
        };
        const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i)));
        const admitted = decisions.filter((decision) => decision.admitted);
        // Each success ended at a distinct total, and the totals add up: nothing was counted twice or lost.
        expect(new Set(admitted.map((decision) => decision.used)).size).toBe(admitted.length);
        const weightAdmitted = admitted.reduce((sum, decision) => sum + decision.weight, 0);
        expect(Math.max(...admitted.map((decision) => decision.used))).toBe(weightAdmitted);
        // 26 single-unit admissions cannot all fit in 20, so some were turned away at a full counter: it is exactly full.
        expect(weightAdmitted).toBe(20);
        expect(await store.readQuotaCommitted(owner.id, '2026-11')).toBe(20);
        const heldAdmitted = admitted.filter((decision) => decision.weight === 2).length * 2;
        expect(await columns(owner.id)).toEqual({ used: 20 - heldAdmitted, held: heldAdmitted });
      });
    });
  });
}
