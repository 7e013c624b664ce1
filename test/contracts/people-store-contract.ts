/**
 * Teams storage (PeopleStore), run against SQLite and PostgreSQL like the main store contract: people
 * adopted from logins, memberships and roles, the last owner, removal (keys revoked or handed over,
 * sessions ended in that organization only), sessions switching organization, and invitations
 * (single use, expiring, revocable, re-sendable, for their recipient only).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, lastFour } from '../../src/core/api-key.js';
import { EmailTakenError } from '../../src/stores/account-auth-store.js';
import { KeyHeirError, LastOwnerError, NotAMemberError, type PersonRecord } from '../../src/stores/people-store.js';
import type { Account, Store } from '../../src/stores/store.js';
import { ManualClock, type MakeStore } from './store-contract.js';

const START = Date.UTC(2026, 10, 15, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 86_400_000;

export function runPeopleStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name} people store contract`, () => {
    let clock: ManualClock;
    let store: Store;
    beforeEach(async () => {
      clock = new ManualClock(START);
      store = await makeStore(clock);
    });
    afterEach(async () => {
      await store.close();
    });

    /** An organization made the way sign-up (or an older release) makes one, and its adopted owner. */
    const organization = async (email: string): Promise<{ account: Account; owner: PersonRecord }> => {
      const account = await store.createAccountWithLogin({ email, plan: 'free', passwordHash: `hash-${email}` }, 'app');
      const owner = await store.adoptLogin(account.id);
      return { account, owner: owner! };
    };
    const person = (email: string) => store.createPerson({ email, passwordHash: `hash-${email}`, emailVerifiedAt: null }, 'app');
    const keyFor = (accountId: string, personId: string | null) => {
      const key = generateApiKey();
      return store.createApiKey({ accountId, name: 'k', hash: hashApiKey(key), last4: lastFour(key), personId }, 'app');
    };
    const session = (accountId: string, personId: string | null, token: string) =>
      store.createSession({ accountId, personId, tokenHash: token, userAgent: null, ip: null });

    it('adopts a login without a person (an older release made it) as the owner, once, with its password and verification', async () => {
      const account = await store.createAccountWithLogin({ email: 'Ada@Example.com', plan: 'pro', passwordHash: 'h1' }, 'app');
      await store.markEmailVerified(account.id, iso(START));
      expect(await store.findPersonByEmail('ada@example.com')).toBeNull();
      const [first, second] = await Promise.all([store.adoptLogin(account.id), store.adoptLogin(account.id)]);
      expect(first).toEqual({ id: expect.stringMatching(/^psn_[0-9a-f]{24}$/), email: 'ada@example.com', passwordHash: 'h1', emailVerifiedAt: iso(START), createdAt: iso(START), updatedAt: iso(START) });
      expect(second).toEqual(first);
      expect(await store.findPersonByEmail(' ADA@example.com')).toEqual(first);
      expect(await store.getMembership(account.id, first!.id)).toEqual({ accountId: account.id, personId: first!.id, role: 'owner', createdAt: iso(START) });
      expect(await store.listMembers(account.id)).toHaveLength(1);
      const cliOnly = await store.createAccount({ email: 'cli@example.com', plan: 'free' }, 'cli');
      expect(await store.adoptLogin(cliOnly.id)).toBeNull();
    });

    it('refuses a second person for an address, and a password change reaches the person and the matching login', async () => {
      const { account, owner } = await organization('ada@example.com');
      await expect(person('ADA@example.com')).rejects.toBeInstanceOf(EmailTakenError);
      clock.advance(1000);
      await store.setPersonPassword(owner.id, 'new-hash', `person:${owner.id}`);
      expect((await store.getPerson(owner.id))?.passwordHash).toBe('new-hash');
      expect((await store.getLogin(account.id))?.passwordHash).toBe('new-hash');
      await store.markPersonVerified(owner.id, iso(START + 5));
      await store.markPersonVerified(owner.id, iso(START + 9));
      expect((await store.getPerson(owner.id))?.emailVerifiedAt).toBe(iso(START + 5));
    });

    it('lets one person belong to several organizations with a role in each, and switch the session between them', async () => {
      const acme = await organization('owner@acme.example');
      const beta = await organization('owner@beta.example');
      const bob = await person('bob@example.com');
      await store.addMember({ accountId: acme.account.id, personId: bob.id, role: 'admin' }, `person:${acme.owner.id}`);
      clock.advance(1000);
      await store.addMember({ accountId: beta.account.id, personId: bob.id, role: 'viewer' }, `person:${beta.owner.id}`);
      expect((await store.listMemberships(bob.id)).map((m) => [m.account.id, m.role])).toEqual([
        [acme.account.id, 'admin'],
        [beta.account.id, 'viewer'],
      ]);
      expect((await store.listMembers(acme.account.id)).map((m) => [m.email, m.role])).toEqual([
        ['owner@acme.example', 'owner'],
        ['bob@example.com', 'admin'],
      ]);
      const own = await session(acme.account.id, bob.id, 'tok-bob');
      expect(await store.selectSessionAccount(own.id, bob.id, beta.account.id)).toBe(true);
      expect((await store.findSessionByTokenHash('tok-bob'))?.account.id).toBe(beta.account.id);
      // Not a member of a third organization: the session stays where it was.
      const gamma = await organization('owner@gamma.example');
      expect(await store.selectSessionAccount(own.id, bob.id, gamma.account.id)).toBe(false);
      expect((await store.findSessionByTokenHash('tok-bob'))?.account.id).toBe(beta.account.id);
      expect(await store.listMembers(gamma.account.id)).toHaveLength(1);
    });

    it('binds a session an older release made without a person, once', async () => {
      const { account, owner } = await organization('ada@example.com');
      const old = await session(account.id, null, 'tok-old');
      expect(old.personId).toBeNull();
      await store.bindSessionPerson(old.id, owner.id);
      await store.bindSessionPerson(old.id, 'psn_someone_else');
      expect((await store.findSessionByTokenHash('tok-old'))?.session.personId).toBe(owner.id);
    });

    it('never leaves an organization without an owner', async () => {
      const { account, owner } = await organization('ada@example.com');
      const bob = await person('bob@example.com');
      await store.addMember({ accountId: account.id, personId: bob.id, role: 'member' }, 'cli');
      await expect(store.setMemberRole(account.id, owner.id, 'admin', 'cli')).rejects.toBeInstanceOf(LastOwnerError);
      await expect(store.removeMember(account.id, owner.id, { heirPersonId: null }, 'cli')).rejects.toBeInstanceOf(LastOwnerError);
      await expect(store.setMemberRole(account.id, 'psn_stranger', 'admin', 'cli')).rejects.toBeInstanceOf(NotAMemberError);
      // Transfer: make another owner first, then the first may step down.
      await store.setMemberRole(account.id, bob.id, 'owner', `person:${owner.id}`);
      await Promise.allSettled([store.setMemberRole(account.id, owner.id, 'member', 'cli'), store.setMemberRole(account.id, bob.id, 'member', 'cli')]);
      expect((await store.listMembers(account.id)).filter((m) => m.role === 'owner')).toHaveLength(1);
      const events = await store.listAuditEvents({ accountId: account.id });
      expect(events.some((e) => e.action === 'member.set_role' && e.actor === `person:${owner.id}` && e.details.to === 'owner')).toBe(true);
    });

    it('a role below admin revokes the person’s management keys in that organization only, in the same change; a viewer’s ordinary keys go too', async () => {
      const acme = await organization('owner@acme.example');
      const beta = await organization('owner@beta.example');
      const bob = await person('bob@example.com');
      await store.addMember({ accountId: acme.account.id, personId: bob.id, role: 'admin' }, 'cli');
      await store.addMember({ accountId: beta.account.id, personId: bob.id, role: 'admin' }, 'cli');
      const managementFor = (accountId: string) => {
        const key = generateApiKey();
        return store.createApiKey({ accountId, name: 'm', hash: hashApiKey(key), last4: lastFour(key), personId: bob.id, kind: 'management' }, 'app');
      };
      const [acmeManagement, betaManagement, ordinary] = [await managementFor(acme.account.id), await managementFor(beta.account.id), await keyFor(acme.account.id, bob.id)];
      // Owner to admin and admin to owner keep management keys.
      expect((await store.setMemberRole(acme.account.id, bob.id, 'owner', 'cli')).revokedKeys).toEqual([]);
      expect((await store.setMemberRole(acme.account.id, bob.id, 'admin', 'cli')).revokedKeys).toEqual([]);
      const change = await store.setMemberRole(acme.account.id, bob.id, 'member', `person:${acme.owner.id}`);
      expect(change).toMatchObject({ role: 'member', revokedKeys: [{ id: acmeManagement.id, hash: acmeManagement.hash }] });
      expect((await store.getApiKey(acmeManagement.id))?.revokedAt).toBe(iso(START));
      expect((await store.getApiKey(ordinary.id))?.revokedAt).toBeNull();
      expect((await store.getApiKey(betaManagement.id))?.revokedAt).toBeNull();
      const events = await store.listAuditEvents({ accountId: acme.account.id });
      expect(events.some((e) => e.action === 'key.revoke' && e.keyId === acmeManagement.id && e.details.reason === 'role_changed' && e.actor === `person:${acme.owner.id}`)).toBe(true);
      // A viewer reads usage only: the ordinary key goes too, in that organization only.
      const betaOrdinary = await keyFor(beta.account.id, bob.id);
      expect((await store.setMemberRole(acme.account.id, bob.id, 'viewer', 'cli')).revokedKeys).toEqual([{ id: ordinary.id, hash: ordinary.hash }]);
      expect((await store.getApiKey(ordinary.id))?.revokedAt).toBe(iso(START));
      expect((await store.getApiKey(betaOrdinary.id))?.revokedAt).toBeNull();
      const viewerEvents = await store.listAuditEvents({ accountId: acme.account.id });
      expect(viewerEvents.some((e) => e.action === 'key.revoke' && e.keyId === ordinary.id && e.details.reason === 'role_changed' && e.details.role === 'viewer')).toBe(true);
    });

    it('removing a member revokes their live keys (or hands them to an admin) and ends their sessions in that organization only', async () => {
      const acme = await organization('owner@acme.example');
      const beta = await organization('owner@beta.example');
      const bob = await person('bob@example.com');
      await store.addMember({ accountId: acme.account.id, personId: bob.id, role: 'member' }, 'cli');
      await store.addMember({ accountId: beta.account.id, personId: bob.id, role: 'member' }, 'cli');
      const bobsKey = await keyFor(acme.account.id, bob.id);
      const ownersKey = await keyFor(acme.account.id, acme.owner.id);
      const bobsOtherOrgKey = await keyFor(beta.account.id, bob.id);
      await session(acme.account.id, bob.id, 'bob-acme');
      await session(beta.account.id, bob.id, 'bob-beta');
      await expect(store.removeMember(acme.account.id, bob.id, { heirPersonId: bob.id }, 'cli')).rejects.toBeInstanceOf(KeyHeirError);
      const removal = await store.removeMember(acme.account.id, bob.id, { heirPersonId: null }, `person:${acme.owner.id}`);
      expect(removal).toMatchObject({ membership: { role: 'member' }, revokedKeys: [{ id: bobsKey.id, hash: bobsKey.hash }], handedOverKeyIds: [], endedSessions: 1 });
      expect((await store.getApiKey(bobsKey.id))?.revokedAt).toBe(iso(START));
      expect((await store.getApiKey(ownersKey.id))?.revokedAt).toBeNull();
      expect((await store.getApiKey(bobsOtherOrgKey.id))?.revokedAt).toBeNull();
      expect(await store.findSessionByTokenHash('bob-acme')).toBeNull();
      expect(await store.findSessionByTokenHash('bob-beta')).not.toBeNull();
      expect(await store.getMembership(acme.account.id, bob.id)).toBeNull();
      expect((await store.listAuditEvents({ accountId: acme.account.id })).filter((e) => e.actor === `person:${acme.owner.id}`).map((e) => e.action)).toEqual([
        'member.remove',
        'key.revoke',
      ]);

      // Handed over: the key keeps working, now the admin's.
      const carol = await person('carol@example.com');
      await store.addMember({ accountId: beta.account.id, personId: carol.id, role: 'admin' }, 'cli');
      await expect(store.removeMember(beta.account.id, bob.id, { heirPersonId: 'psn_stranger' }, 'cli')).rejects.toBeInstanceOf(KeyHeirError);
      const handed = await store.removeMember(beta.account.id, bob.id, { heirPersonId: carol.id }, 'cli');
      expect(handed).toMatchObject({ revokedKeys: [], handedOverKeyIds: [bobsOtherOrgKey.id] });
      expect(await store.getApiKey(bobsOtherOrgKey.id)).toMatchObject({ revokedAt: null, personId: carol.id });
    });

    it('keeps the creator on a rotated key', async () => {
      const { account, owner } = await organization('ada@example.com');
      const key = await keyFor(account.id, owner.id);
      const { created } = await store.rotateApiKey(key.id, { hash: 'h2', last4: 'wxyz', name: 'k' }, 0, 'app');
      expect(created.personId).toBe(owner.id);
    });

    it('renames an organization and makes new ones owned by a person', async () => {
      const { account, owner } = await organization('ada@example.com');
      expect(await store.renameAccount(account.id, 'Acme', `person:${owner.id}`)).toEqual({ ...account, name: 'Acme' });
      clock.advance(1000);
      const second = await store.createOrganization({ ownerPersonId: owner.id, name: 'Side project', plan: 'free' }, `person:${owner.id}`);
      expect(second).toMatchObject({ name: 'Side project', email: 'ada@example.com', plan: 'free', status: 'active' });
      expect((await store.listMemberships(owner.id)).map((m) => [m.account.name, m.role])).toEqual([
        ['Acme', 'owner'],
        ['Side project', 'owner'],
      ]);
    });

    it('ends every session of a person except the current one', async () => {
      const acme = await organization('owner@acme.example');
      const beta = await store.createOrganization({ ownerPersonId: acme.owner.id, name: null, plan: 'free' }, 'cli');
      const keep = await session(acme.account.id, acme.owner.id, 't1');
      await session(beta.id, acme.owner.id, 't2');
      await session(acme.account.id, acme.owner.id, 't3');
      expect(await store.deletePersonSessions(acme.owner.id, keep.id)).toBe(2);
      expect((await store.listSessions(acme.account.id)).map((s) => s.id)).toEqual([keep.id]);
    });

    describe('invitations', () => {
      const invite = (accountId: string, email: string, token: string, role: 'admin' | 'member' | 'viewer' = 'member') =>
        store.createInvitation({ accountId, email, role, invitedBy: null, tokenHash: token, expiresAt: iso(clock.now() + 7 * DAY) }, 'cli');

      it('is accepted once, by its recipient only, and adds the membership with its role', async () => {
        const { account } = await organization('owner@acme.example');
        const created = await invite(account.id, ' Bob@Example.com', 'tok', 'viewer');
        expect(created).toMatchObject({ id: expect.stringMatching(/^inv_/), email: 'bob@example.com', role: 'viewer', sentCount: 1, acceptedAt: null, revokedAt: null });
        expect(await store.peekInvitation('tok', iso(clock.now()))).toEqual(created);
        const carol = await person('carol@example.com');
        expect(await store.acceptInvitation('tok', carol.id, iso(clock.now()))).toBeNull();
        const bob = await person('bob@example.com');
        const [one, two] = await Promise.all([store.acceptInvitation('tok', bob.id, iso(clock.now())), store.acceptInvitation('tok', bob.id, iso(clock.now()))]);
        expect([one, two].filter((result) => result !== null)).toHaveLength(1);
        expect(await store.getMembership(account.id, bob.id)).toMatchObject({ role: 'viewer' });
        expect(await store.getMembership(account.id, carol.id)).toBeNull();
        expect(await store.peekInvitation('tok', iso(clock.now()))).toBeNull();
        expect(await store.listInvitations(account.id, iso(clock.now()))).toEqual([]);
      });

      it('keeps the plan’s member limit at acceptance: of two newcomers racing for the last seat, one joins; the other’s invitation stays pending', async () => {
        const { account } = await organization('owner@acme.example');
        const [bob, carol] = [await person('bob@example.com'), await person('carol@example.com')];
        await invite(account.id, 'bob@example.com', 'bob-tok');
        await invite(account.id, 'carol@example.com', 'carol-tok');
        const twoSeats = (plan: string) => (plan === 'free' ? 2 : undefined);
        const results = await Promise.allSettled([store.acceptInvitation('bob-tok', bob.id, iso(clock.now()), twoSeats), store.acceptInvitation('carol-tok', carol.id, iso(clock.now()), twoSeats)]);
        const refused = results.filter((result) => result.status === 'rejected');
        expect(refused).toHaveLength(1);
        expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ name: 'MemberLimitError', plan: 'free', maxMembers: 2, members: 2 });
        expect(await store.listMembers(account.id)).toHaveLength(2);
        expect(await store.listInvitations(account.id, iso(clock.now()))).toHaveLength(1);
        // Someone already a member uses an invitation without taking a seat.
        const member = (await store.listMembers(account.id)).find((view) => view.role === 'member')!;
        await invite(account.id, member.email, 'again');
        expect(await store.acceptInvitation('again', member.personId, iso(clock.now()), twoSeats)).not.toBeNull();
      });

      it('expires, can be revoked, and a newer one (or a resend) replaces the older link', async () => {
        const { account } = await organization('owner@acme.example');
        const other = await organization('owner@other.example');
        const bob = await person('bob@example.com');
        await invite(account.id, 'bob@example.com', 'first');
        const second = await invite(account.id, 'bob@example.com', 'second');
        expect(await store.peekInvitation('first', iso(clock.now()))).toBeNull();
        expect((await store.listInvitations(account.id, iso(clock.now()))).map((i) => i.id)).toEqual([second.id]);

        clock.advance(1000);
        const resent = await store.resendInvitation(account.id, second.id, { tokenHash: 'third', expiresAt: iso(clock.now() + DAY) }, 'cli');
        expect(resent).toMatchObject({ id: second.id, sentCount: 2, lastSentAt: iso(START + 1000), expiresAt: iso(START + 1000 + DAY) });
        expect(await store.peekInvitation('second', iso(clock.now()))).toBeNull();
        expect(await store.resendInvitation(other.account.id, second.id, { tokenHash: 'x', expiresAt: iso(clock.now() + DAY) }, 'cli')).toBeNull();

        expect(await store.revokeInvitation(other.account.id, second.id, 'cli')).toBe(false);
        expect(await store.revokeInvitation(account.id, second.id, 'cli')).toBe(true);
        expect(await store.revokeInvitation(account.id, second.id, 'cli')).toBe(false);
        expect(await store.acceptInvitation('third', bob.id, iso(clock.now()))).toBeNull();

        await invite(account.id, 'bob@example.com', 'late');
        clock.advance(7 * DAY);
        expect(await store.peekInvitation('late', iso(clock.now()))).toBeNull();
        expect(await store.acceptInvitation('late', bob.id, iso(clock.now()))).toBeNull();
        expect(await store.getMembership(account.id, bob.id)).toBeNull();
      });
    });
  });
}
