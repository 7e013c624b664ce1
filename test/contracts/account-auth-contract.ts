/**
 * The account app's storage behaviour (AccountAuthStore, KeyLimitStore), run against SQLite and
 * PostgreSQL like the main store contract: logins, sessions scoped to their account, single-use links,
 * per-key limits and counters.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, lastFour } from '../../src/core/api-key.js';
import { EmailTakenError } from '../../src/stores/account-auth-store.js';
import type { Store } from '../../src/stores/store.js';
import { ManualClock, type MakeStore } from './store-contract.js';

const START = Date.UTC(2026, 10, 15, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

export function runAccountAuthContract(name: string, makeStore: MakeStore): void {
  describe(`${name} account app storage contract`, () => {
    let clock: ManualClock;
    let store: Store;
    beforeEach(async () => {
      clock = new ManualClock(START);
      store = await makeStore(clock);
    });
    afterEach(async () => {
      await store.close();
    });
    const newKey = async (accountId: string) => {
      const key = generateApiKey();
      return store.createApiKey({ accountId, name: 'k', hash: hashApiKey(key), last4: lastFour(key) }, 'app');
    };

    it('creates an account with its login, normalizes the email and refuses a second login for it', async () => {
      const account = await store.createAccountWithLogin({ email: ' Ada@Example.com ', plan: 'free', passwordHash: 'h1' }, 'app');
      expect(account).toMatchObject({ email: 'ada@example.com', plan: 'free', status: 'active' });
      const found = await store.findLoginByEmail('ADA@example.com');
      expect(found?.account.id).toBe(account.id);
      expect(found?.login).toEqual({ accountId: account.id, email: 'ada@example.com', passwordHash: 'h1', updatedAt: iso(START), emailVerifiedAt: null });
      await expect(store.createAccountWithLogin({ email: 'ada@EXAMPLE.com', plan: 'free', passwordHash: 'h2' }, 'app')).rejects.toBeInstanceOf(EmailTakenError);
      expect(await store.listAccounts()).toHaveLength(1);
      expect((await store.listAuditEvents({ accountId: account.id }))[0]).toMatchObject({ action: 'account.create', details: { plan: 'free', via: 'signup' } });
    });

    it('sets a first password for a CLI-created account and replaces it later, never taking another login’s email', async () => {
      const cli = await store.createAccount({ email: 'Bob@example.com', plan: 'pro' }, 'cli');
      expect(await store.getLogin(cli.id)).toBeNull();
      expect((await store.findAccountsByEmail('bob@EXAMPLE.com')).map((a) => a.id)).toEqual([cli.id]);
      await store.setPassword({ accountId: cli.id, email: cli.email, passwordHash: 'first' }, 'app');
      clock.advance(1000);
      await store.setPassword({ accountId: cli.id, email: cli.email, passwordHash: 'second' }, 'app');
      expect(await store.getLogin(cli.id)).toEqual({ accountId: cli.id, email: 'bob@example.com', passwordHash: 'second', updatedAt: iso(START + 1000), emailVerifiedAt: null });
      const other = await store.createAccountWithLogin({ email: 'carol@example.com', plan: 'free', passwordHash: 'x' }, 'app');
      await expect(store.setPassword({ accountId: cli.id, email: 'carol@example.com', passwordHash: 'y' }, 'app')).rejects.toBeInstanceOf(EmailTakenError);
      expect((await store.getLogin(other.id))?.passwordHash).toBe('x');
    });

    it('keeps sessions per account: find by hash, touch, list, and delete only within the account', async () => {
      const a = await store.createAccountWithLogin({ email: 'a@example.com', plan: 'free', passwordHash: 'h' }, 'app');
      const b = await store.createAccountWithLogin({ email: 'b@example.com', plan: 'free', passwordHash: 'h' }, 'app');
      const first = await store.createSession({ accountId: a.id, tokenHash: 'hash-1', userAgent: 'Firefox', ip: '127.0.0.1' });
      clock.advance(1000);
      const second = await store.createSession({ accountId: a.id, tokenHash: 'hash-2', userAgent: null, ip: null });
      const foreign = await store.createSession({ accountId: b.id, tokenHash: 'hash-3', userAgent: null, ip: null });
      expect(first).toMatchObject({ id: expect.stringMatching(/^ses_/), accountId: a.id, createdAt: iso(START), lastSeenAt: iso(START), userAgent: 'Firefox' });
      expect((await store.findSessionByTokenHash('hash-1'))?.account.id).toBe(a.id);
      expect(await store.findSessionByTokenHash('nope')).toBeNull();
      await store.touchSession(first.id, iso(START + 5000));
      expect((await store.listSessions(a.id)).map((s) => [s.id, s.lastSeenAt])).toEqual([
        [first.id, iso(START + 5000)],
        [second.id, iso(START + 1000)],
      ]);
      expect(await store.deleteSession(a.id, foreign.id)).toBe(false);
      expect(await store.findSessionByTokenHash('hash-3')).not.toBeNull();
      expect(await store.deleteSessions(a.id, first.id)).toBe(1);
      expect((await store.listSessions(a.id)).map((s) => s.id)).toEqual([first.id]);
      expect(await store.deleteSession(a.id, first.id)).toBe(true);
      expect(await store.listSessions(a.id)).toEqual([]);
      expect((await store.listSessions(b.id)).map((s) => s.id)).toEqual([foreign.id]);
    });

    it('ends every session of an account when it is deactivated', async () => {
      const a = await store.createAccountWithLogin({ email: 'a@example.com', plan: 'free', passwordHash: 'h' }, 'app');
      await store.createSession({ accountId: a.id, tokenHash: 'h1', userAgent: null, ip: null });
      await store.deactivateAccount(a.id, 'cli');
      expect(await store.listSessions(a.id)).toEqual([]);
    });

    it('uses a link exactly once and never after it expires', async () => {
      const expiresAt = iso(START + 30 * 60_000);
      const link = await store.createLinkToken({ kind: 'invite', email: 'New@example.com', accountId: null, tokenHash: 'lh', expiresAt }, 'cli');
      expect(link).toMatchObject({ kind: 'invite', email: 'new@example.com', accountId: null, expiresAt, usedAt: null });
      expect(await store.peekLinkToken('lh', iso(START))).toMatchObject({ id: link.id });
      const uses = await Promise.all([store.consumeLinkToken('lh', iso(START)), store.consumeLinkToken('lh', iso(START))]);
      expect(uses.filter((use) => use !== null)).toHaveLength(1);
      expect(await store.peekLinkToken('lh', iso(START))).toBeNull();
      await store.createLinkToken({ kind: 'reset', email: 'x@example.com', accountId: null, tokenHash: 'old', expiresAt }, 'cli');
      expect(await store.consumeLinkToken('old', expiresAt)).toBeNull();
      expect(await store.peekLinkToken('old', expiresAt)).toBeNull();
    });

    it('lets only the newest unused link of a kind work for an email: a new one makes the earlier ones expire', async () => {
      const expiresAt = iso(START + 30 * 60_000);
      const issue = (tokenHash: string, kind: 'reset' | 'verify', email = 'ada@example.com') =>
        store.createLinkToken({ kind, email, accountId: null, tokenHash, expiresAt }, 'app');
      await issue('first', 'reset');
      await issue('verify', 'verify');
      await issue('other', 'reset', 'bob@example.com');
      clock.advance(1000);
      await issue('second', 'reset', 'ADA@example.com');
      expect(await store.peekLinkToken('first', iso(START + 1000))).toBeNull();
      expect(await store.consumeLinkToken('first', iso(START + 1000))).toBeNull();
      expect(await store.peekLinkToken('second', iso(START + 1000))).not.toBeNull();
      // Another kind and another email keep their links.
      expect(await store.peekLinkToken('verify', iso(START + 1000))).not.toBeNull();
      expect(await store.peekLinkToken('other', iso(START + 1000))).not.toBeNull();
      // Issued at the same moment (two workers or instances): still only one works.
      const tokens = ['c1', 'c2', 'c3', 'c4', 'c5'];
      await Promise.all(tokens.map((token) => issue(token, 'reset')));
      const working = await Promise.all(tokens.map((token) => store.peekLinkToken(token, iso(START + 1000))));
      expect(working.filter((link) => link !== null)).toHaveLength(1);
    });

    it('records the app’s own audit events for the account', async () => {
      const a = await store.createAccountWithLogin({ email: 'a@example.com', plan: 'free', passwordHash: 'h' }, 'app');
      await store.recordAuditEvent({ actor: 'app', action: 'signin.success', accountId: a.id, details: { ip: '127.0.0.1' } });
      expect((await store.listAuditEvents({ accountId: a.id, limit: 1 }))[0]).toMatchObject({ action: 'signin.success', details: { ip: '127.0.0.1' } });
    });

    it('creates a key with an expiry chosen at creation', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      const key = generateApiKey();
      const expiresAt = iso(START + 86_400_000);
      const record = await store.createApiKey({ accountId: a.id, name: 'ci', hash: hashApiKey(key), last4: lastFour(key), expiresAt }, 'app');
      expect(record.expiresAt).toBe(expiresAt);
    });

    it('stores per-key limits, lists them per account and removes them when both are cleared', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      const b = await store.createAccount({ email: 'b@example.com', plan: 'free' }, 'cli');
      const key = await newKey(a.id);
      const foreign = await newKey(b.id);
      await store.setKeyLimits({ keyId: key.id, monthlyRequests: 10, requestsPerMinute: null }, 'app');
      await store.setKeyLimits({ keyId: foreign.id, monthlyRequests: null, requestsPerMinute: 3 }, 'app');
      expect(await store.getKeyLimits(key.id)).toEqual({ keyId: key.id, monthlyRequests: 10, requestsPerMinute: null });
      expect(await store.listKeyLimits(a.id)).toEqual([{ keyId: key.id, monthlyRequests: 10, requestsPerMinute: null }]);
      await store.setKeyLimits({ keyId: key.id, monthlyRequests: null, requestsPerMinute: null }, 'app');
      expect(await store.getKeyLimits(key.id)).toBeNull();
      expect((await store.listAuditEvents({ accountId: a.id, limit: 1 }))[0]).toMatchObject({ action: 'key.set_limits', keyId: key.id });
    });

    it('counts per-key requests atomically within the cap, per period, and refunds', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      const key = await newKey(a.id);
      const input = { keyId: key.id, period: '2026-11', weight: 1, limit: 5 };
      const decisions = await Promise.all(Array.from({ length: 12 }, () => store.admitKeyQuota(input)));
      expect(decisions.filter((d) => d.admitted)).toHaveLength(5);
      expect(await store.admitKeyQuota(input)).toEqual({ admitted: false, used: 5 });
      await store.refundKeyQuota(key.id, '2026-11', 1);
      expect(await store.readKeyQuota(key.id, '2026-11')).toBe(4);
      expect(await store.admitKeyQuota({ ...input, period: '2026-12' })).toEqual({ admitted: true, used: 1 });
      await store.refundKeyQuota(key.id, '2026-12', 9);
      expect(await store.readKeyQuota(key.id, '2026-12')).toBe(0);
    });

    it('rotation keeps the expiry, the own limits and this month\'s count against the own cap', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      const expiresAt = '2027-01-01T00:00:00.000Z';
      const plain = generateApiKey();
      const old = await store.createApiKey({ accountId: a.id, name: 'ci', hash: hashApiKey(plain), last4: lastFour(plain), expiresAt }, 'app');
      await store.setKeyLimits({ keyId: old.id, monthlyRequests: 10, requestsPerMinute: 3 }, 'app');
      await store.admitKeyQuota({ keyId: old.id, period: '2026-11', weight: 4, limit: 10 });
      const key = generateApiKey();
      const { created } = await store.rotateApiKey(old.id, { name: 'ci', hash: hashApiKey(key), last4: lastFour(key) }, 60, 'app');
      expect(created).toMatchObject({ name: 'ci', expiresAt, revokedAt: null });
      expect(await store.getKeyLimits(created.id)).toEqual({ keyId: created.id, monthlyRequests: 10, requestsPerMinute: 3 });
      expect(await store.readKeyQuota(created.id, '2026-11')).toBe(4);
      // A key without own limits is rotated into one without them.
      const bare = await newKey(a.id);
      const next = generateApiKey();
      const rotated = await store.rotateApiKey(bare.id, { name: null, hash: hashApiKey(next), last4: lastFour(next) }, 0, 'app');
      expect(rotated.created.expiresAt).toBeNull();
      expect(await store.getKeyLimits(rotated.created.id)).toBeNull();
    });

    it('finds the key that replaced a rotated one', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      const old = await newKey(a.id);
      expect(await store.findReplacementKeyId(old.id)).toBeNull();
      const key = generateApiKey();
      const { created } = await store.rotateApiKey(old.id, { name: old.name, hash: hashApiKey(key), last4: lastFour(key) }, 60, 'app');
      expect(await store.findReplacementKeyId(old.id)).toBe(created.id);
      expect(await store.listReplacements(a.id)).toEqual(new Map([[old.id, created.id]]));
      const b = await store.createAccount({ email: 'b@example.com', plan: 'free' }, 'cli');
      expect(await store.listReplacements(b.id)).toEqual(new Map());
    });
  });
}
