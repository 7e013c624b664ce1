/** What `router orgs …` and `router members …` run (defined in teams.ts), loaded only when one of them runs. */
import type { Command } from 'commander';
import { isRole, roleChangeKeysNotice, ROLES, type Role } from '../../stores/people-store.js';
import type { PlanConfig } from '../../config/types.js';
import type { Store } from '../../stores/store.js';
import { withCliContext } from '../cli-context.js';
import { CliFailure, emit, log } from '../cli-io.js';
import type { StoreCommandOptions } from '../store-options.js';
import { usageError } from '../usage-error.js';

async function personByEmail(store: Store, email: string) {
  const person = await store.findPersonByEmail(email);
  if (!person) throw new CliFailure(`no person signs in with ${email} (invite them from the app's Members page)`);
  return person;
}

function roleArgument(command: Command, value: string): Role {
  if (!isRole(value)) usageError(command, `role must be one of ${ROLES.join(', ')}`);
  return value as Role;
}

/** The plan's maxMembers (members plus pending invitations), as the app's invitation keeps it (docs/teams.md). */
async function withinMemberLimit(plans: readonly PlanConfig[], store: Store, org: string, personId: string): Promise<void> {
  const account = await store.getAccount(org);
  if (!account) throw new CliFailure(`organization ${org} not found`);
  const plan = plans.find((candidate) => candidate.id === account.plan);
  if (plan?.maxMembers === undefined) return;
  const [members, pending] = await Promise.all([store.listMembers(org), store.listInvitations(org, new Date().toISOString())]);
  // Adding someone already there changes nothing, so it is never over the limit.
  if (members.some((member) => member.personId === personId)) return;
  if (members.length + pending.length >= plan.maxMembers) {
    throw new CliFailure(
      `the ${plan.id} plan allows ${plan.maxMembers} member${plan.maxMembers === 1 ? '' : 's'} (pending invitations count) and ${org} has ${members.length} and ${pending.length} pending: change its plan (router accounts set-plan) or remove someone first`,
    );
  }
}

export async function listOrganizations(options: StoreCommandOptions): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    const list = await store.listAccounts();
    emit(options, { organizations: list }, () => {
      if (list.length === 0) log.info('no organizations');
      for (const account of list) log.log(`${account.id}  ${account.name ?? account.email}  plan=${account.plan}  status=${account.status}`);
    });
  });
}

export async function showOrganization(id: string, options: StoreCommandOptions): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    const account = await store.getAccount(id);
    if (!account) throw new CliFailure(`organization ${id} not found`);
    const members = await store.listMembers(id);
    emit(options, { organization: account, members }, () => {
      log.log(`${account.id}  ${account.name ?? account.email}  plan=${account.plan}  status=${account.status}`);
      for (const member of members) log.log(`  ${member.email}  ${member.role}  ${member.personId}`);
    });
  });
}

export async function renameOrganization(this: Command, id: string, name: string, options: StoreCommandOptions): Promise<void> {
  if (name.trim().length > 80) usageError(this, 'a name has at most 80 characters');
  await withCliContext(options.config, async ({ store }) => {
    const account = await store.renameAccount(id, name.trim() === '' ? null : name.trim(), 'cli');
    emit(options, { organization: account }, () => log.success(`organization ${account.id} is now called ${account.name ?? account.email}`));
  });
}

export async function listMembers(org: string, options: StoreCommandOptions): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    const list = await store.listMembers(org);
    emit(options, { members: list }, () => {
      if (list.length === 0) log.info('no members');
      for (const member of list) log.log(`${member.email}  ${member.role}  ${member.personId}  since=${member.createdAt}`);
    });
  });
}

export async function addMember(this: Command, org: string, email: string, role: string, options: StoreCommandOptions): Promise<void> {
  const chosen = roleArgument(this, role);
  await withCliContext(options.config, async ({ config, store }) => {
    const person = await personByEmail(store, email);
    await withinMemberLimit(config.plans, store, org, person.id);
    const membership = await store.addMember({ accountId: org, personId: person.id, role: chosen }, 'cli');
    emit(options, { membership }, () => log.success(`${person.email} is ${membership.role} of ${org}`));
  });
}

export async function setMemberRole(this: Command, org: string, email: string, role: string, options: StoreCommandOptions): Promise<void> {
  const chosen = roleArgument(this, role);
  await withCliContext(options.config, async ({ store }) => {
    const person = await personByEmail(store, email);
    const { revokedKeys, ...membership } = await store.setMemberRole(org, person.id, chosen, 'cli');
    const revokedKeyIds = revokedKeys.map((key) => key.id);
    emit(options, { membership, revokedKeyIds }, () =>
      log.success(`${person.email} is now ${membership.role} of ${org}.${roleChangeKeysNotice(chosen, revokedKeyIds.length)}`),
    );
  });
}

export async function removeMember(org: string, email: string, options: StoreCommandOptions & { keysTo?: string }): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    const person = await personByEmail(store, email);
    const heir = options.keysTo ? (await personByEmail(store, options.keysTo)).id : null;
    const removal = await store.removeMember(org, person.id, { heirPersonId: heir }, 'cli');
    const summary = { removed: removal.membership, revokedKeyIds: removal.revokedKeys.map((key) => key.id), handedOverKeyIds: removal.handedOverKeyIds, endedSessions: removal.endedSessions };
    emit(options, summary, () =>
      log.success(`${person.email} removed from ${org}: ${summary.revokedKeyIds.length} key(s) revoked, ${summary.handedOverKeyIds.length} handed over, ${summary.endedSessions} session(s) ended`),
    );
  });
}
