/**
 * `router orgs …`, `router members …` and `router workspaces …` through the built CLI (bin/router, real
 * processes) on a SQLite store (docs/teams.md): every subcommand in JSON and in text, bad input refused
 * with exit 2 naming what is wrong, a missing organization or person exit 1, the last owner kept, and the
 * plan's maxMembers and maxWorkspaces enforced as the app enforces them.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { createSqliteStore } from '../../src/stores/sqlite/create-sqlite-store.js';
import type { Store } from '../../src/stores/store.js';
import { startCliEnv, type CliEnv } from '../support/cli-env.js';

const CONFIG = new URL('../../config', import.meta.url).pathname;

describe('router orgs, members and workspaces (built bin/router)', { timeout: 60_000 }, () => {
  let env: CliEnv;
  let store: Store;
  /** Bob's organization (plan free: one member) and Carol's (plan pro: two workspaces in this test's plans.yaml). */
  let free: string;
  let pro: string;
  const text = async (...args: string[]) => {
    const result = await env.cli(...args);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout + result.stderr;
  };

  beforeAll(async () => {
    env = startCliEnv('teams-cli');
    // This deployment's plans: Pro may have two workspaces, so the limit is reachable.
    const config = join(env.dataDir, 'config');
    cpSync(CONFIG, config, { recursive: true });
    const plans = join(config, 'plans.yaml');
    writeFileSync(plans, readFileSync(plans, 'utf8').replace('    maxMembers: 10\n', '    maxMembers: 10\n    maxWorkspaces: 2\n'));
    env.env.ROUTER_CONFIG = config;
    // The CLI makes the database; people (who sign in through the app) are made in the store.
    await env.json('accounts', 'create', '--email', 'setup@teams.example', '--plan', 'free');
    store = createSqliteStore({ path: env.dbPath, clock: systemClock });
    const person = (email: string) => store.createPerson({ email, passwordHash: 'not-a-real-hash', emailVerifiedAt: null }, 'test');
    const [bob, carol] = [await person('bob@teams.example'), await person('carol@teams.example')];
    await person('alice@teams.example');
    free = (await store.createOrganization({ ownerPersonId: bob.id, name: 'Bob & Co', plan: 'free' }, 'test')).id;
    pro = (await store.createOrganization({ ownerPersonId: carol.id, name: null, plan: 'pro' }, 'test')).id;
  });
  afterAll(async () => {
    await store?.close();
    env?.cleanUp();
  });

  it('orgs list, show and rename; a missing organization and a long name are refused', async () => {
    const listed = (await env.json('orgs', 'list')).organizations as { id: string; name: string | null; plan: string }[];
    expect(listed).toEqual(expect.arrayContaining([expect.objectContaining({ id: free, name: 'Bob & Co', plan: 'free' }), expect.objectContaining({ id: pro, plan: 'pro' })]));
    expect(await text('orgs', 'list')).toContain(`${free}  Bob & Co  plan=free  status=active`);

    const shown = await env.json('orgs', 'show', free);
    expect(shown.organization).toMatchObject({ id: free, name: 'Bob & Co' });
    expect(shown.members).toEqual([expect.objectContaining({ email: 'bob@teams.example', role: 'owner' })]);
    expect(await text('orgs', 'show', free)).toMatch(/ {2}bob@teams\.example {2}owner {2}psn_/);
    const missing = await env.cli('orgs', 'show', 'acct_missing');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('organization acct_missing not found');

    expect((await env.json('orgs', 'rename', pro, '  Carol Labs  ')).organization).toMatchObject({ id: pro, name: 'Carol Labs' });
    expect(await text('orgs', 'rename', pro, 'Carol Labs Ltd')).toContain(`organization ${pro} is now called Carol Labs Ltd`);
    const long = await env.cli('orgs', 'rename', pro, 'x'.repeat(81));
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('at most 80 characters');
    // "" clears the name: the organization shows its email again.
    expect((await env.json('orgs', 'rename', pro, '')).organization.name).toBeNull();
    // The operator acted: audited as `cli`.
    const renames = (await store.listAuditEvents({ accountId: pro })).filter((event) => event.action === 'account.rename');
    expect(renames.length).toBeGreaterThan(0);
    expect(renames.every((event) => event.actor === 'cli')).toBe(true);
  });

  it('members add, role, list and remove, as the operator (actor cli), keeping the last owner', async () => {
    const added = await env.json('members', 'add', pro, 'alice@teams.example', 'admin');
    expect(added.membership).toMatchObject({ accountId: pro, role: 'admin' });
    // Adding again changes nothing.
    expect(await text('members', 'add', pro, 'alice@teams.example', 'admin')).toContain(`alice@teams.example is admin of ${pro}`);
    // Below admin, Alice's management key goes in the same change (only owners and admins hold one).
    const aliceId = (await store.findPersonByEmail('alice@teams.example'))!.id;
    const manager = await store.createApiKey({ accountId: pro, name: 'alice-provisioning', hash: 'hash-alice-provisioning', last4: 'mmmm', personId: aliceId, kind: 'management' }, 'test');
    const ordinary = await store.createApiKey({ accountId: pro, name: 'alice-cli', hash: 'hash-alice-cli', last4: 'oooo', personId: aliceId }, 'test');
    const demoted = await env.json('members', 'role', pro, 'alice@teams.example', 'member');
    expect(demoted).toEqual({ membership: expect.objectContaining({ role: 'member' }), revokedKeyIds: [manager.id] });
    expect((await store.getApiKey(manager.id))?.revokedAt).toBeTruthy();
    expect((await store.getApiKey(ordinary.id))?.revokedAt).toBeNull();
    // A viewer reads usage only: the ordinary key that still called models goes too, and the output says so.
    expect(await text('members', 'role', pro, 'alice@teams.example', 'viewer')).toContain(`alice@teams.example is now viewer of ${pro}. 1 key was revoked: a viewer reads usage only and calls no model.`);
    expect((await store.getApiKey(ordinary.id))?.revokedAt).toBeTruthy();
    const revocations = (await store.listAuditEvents({ accountId: pro })).filter((event) => event.action === 'key.revoke' && event.keyId === ordinary.id);
    expect(revocations).toEqual([expect.objectContaining({ actor: 'cli' })]);
    expect(await text('members', 'role', pro, 'alice@teams.example', 'member')).toContain(`alice@teams.example is now member of ${pro}`);
    const members = (await env.json('members', 'list', pro)).members as { email: string; role: string }[];
    expect(members.map((member) => `${member.email}:${member.role}`).sort()).toEqual(['alice@teams.example:member', 'carol@teams.example:owner']);
    expect(await text('members', 'list', pro)).toMatch(/alice@teams\.example {2}member {2}psn_[0-9a-f]+ {2}since=/);

    const badRole = await env.cli('members', 'add', pro, 'alice@teams.example', 'boss');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('role must be one of owner, admin, member, viewer');
    const stranger = await env.cli('members', 'add', pro, 'nobody@teams.example', 'member');
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('no person signs in with nobody@teams.example');
    const lastOwner = await env.cli('members', 'role', pro, 'carol@teams.example', 'admin');
    expect(lastOwner.code).toBe(1);
    expect((await env.json('members', 'list', pro)).members).toContainEqual(expect.objectContaining({ email: 'carol@teams.example', role: 'owner' }));
    expect((await env.cli('members', 'remove', free, 'bob@teams.example')).code).toBe(1);

    // Alice's key is handed to Carol at removal, then Alice is added back and removed with her key revoked.
    const alice = (await store.findPersonByEmail('alice@teams.example'))!;
    const keyOf = (name: string, last4: string) => store.createApiKey({ accountId: pro, name, hash: `hash-${name}`, last4, personId: alice.id }, 'test');
    const kept = await keyOf('alice-laptop', 'aaaa');
    const handed = await env.json('members', 'remove', pro, 'alice@teams.example', '--keys-to', 'carol@teams.example');
    expect(handed).toMatchObject({ removed: { role: 'member' }, revokedKeyIds: [], handedOverKeyIds: [kept.id] });
    await env.json('members', 'add', pro, 'alice@teams.example', 'member');
    const revoked = await keyOf('alice-phone', 'bbbb');
    expect(await text('members', 'remove', pro, 'alice@teams.example')).toContain(`alice@teams.example removed from ${pro}: 1 key(s) revoked, 0 handed over`);
    expect((await store.getApiKey(revoked.id))?.revokedAt).toBeTruthy();
    expect((await env.json('members', 'list', pro)).members.map((member: { email: string }) => member.email)).toEqual(['carol@teams.example']);
    expect((await env.cli('members', 'remove', pro, 'alice@teams.example')).code).toBe(1);
  });

  it('members add keeps the plan’s maxMembers (Free: one person), as the app’s invitations do', async () => {
    const refused = await env.cli('members', 'add', free, 'alice@teams.example', 'member');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the free plan allows 1 member (pending invitations count)');
    expect((await env.json('members', 'list', free)).members).toHaveLength(1);
    // On a plan without the limit, the same person joins.
    await env.json('accounts', 'set-plan', free, 'max');
    expect((await env.json('members', 'add', free, 'alice@teams.example', 'member')).membership.role).toBe('member');
  });

  it('workspaces list, create and rename, within the plan’s maxWorkspaces; bad names and strangers’ workspaces refused', async () => {
    const [initial] = (await env.json('workspaces', 'list', '--account', pro)).workspaces as { id: string; name: string; isDefault: boolean }[];
    expect(initial).toMatchObject({ isDefault: true });
    expect(await text('workspaces', 'list', '--account', pro)).toContain(`${initial!.id}  ${initial!.name}  (default)`);
    const made = (await env.json('workspaces', 'create', '--account', pro, '--name', '  Research  ')).workspace;
    expect(made).toMatchObject({ name: 'Research', isDefault: false });
    const over = await env.cli('workspaces', 'create', '--account', pro, '--name', 'Third');
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('the pro plan allows 2 workspaces');
    expect(await text('workspaces', 'rename', '--account', pro, '--workspace', made.id, '--name', 'Lab')).toContain(`renamed ${made.id} to Lab`);
    expect((await env.json('workspaces', 'list', '--account', pro)).workspaces.map((workspace: { name: string }) => workspace.name)).toContain('Lab');

    for (const name of ['', '   ', 'x'.repeat(200)]) {
      const bad = await env.cli('workspaces', 'create', '--account', free, '--name', name);
      expect(bad.code, name).toBe(2);
      expect(bad.stderr).toContain('a workspace name has 1 to');
    }
    expect((await env.cli('workspaces', 'list', '--account', 'acct_missing')).code).toBe(1);
    // Another organization's workspace cannot be renamed through this one.
    expect((await env.cli('workspaces', 'rename', '--account', free, '--workspace', made.id, '--name', 'Stolen')).code).toBe(1);
    expect((await env.cli('workspaces', 'list')).code).toBe(2);
  });
});
