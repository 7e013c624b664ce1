/**
 * `router orgs …` and `router members …` (docs/teams.md): the operator's view of organizations (accounts)
 * and their people. The CLI acts with the operator's authority (audit actor `cli`), not as a person;
 * removing a member revokes their keys in that organization, which running instances stop accepting
 * within their key cache's TTL, as for `router keys revoke`. What they run is in teams-actions.ts.
 */
import type { Command } from 'commander';
import { ROLES } from '../../stores/people-store.js';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

const actions = () => import('./teams-actions.js');

export function registerTeamCommands(program: Command): void {
  const orgs = program.command('orgs').description('organizations (accounts shared by people with roles)');

  withStoreOptions(orgs.command('list'))
    .description('list organizations with their names')
    .action(lazyAction(actions, 'listOrganizations'));

  withStoreOptions(orgs.command('show'))
    .description('an organization and its members')
    .argument('<id>', 'organization (account) id')
    .action(lazyAction(actions, 'showOrganization'));

  withStoreOptions(orgs.command('rename'))
    .description('set the name an organization shows ("" clears it)')
    .argument('<id>', 'organization (account) id')
    .argument('<name>', 'display name (at most 80 characters)')
    .action(lazyAction(actions, 'renameOrganization'));

  const members = program.command('members').description("an organization's people and their roles");

  withStoreOptions(members.command('list'))
    .description('list the members of an organization')
    .argument('<org>', 'organization (account) id')
    .action(lazyAction(actions, 'listMembers'));

  withStoreOptions(members.command('add'))
    .description('add a person who can already sign in to an organization with a role')
    .argument('<org>', 'organization (account) id')
    .argument('<email>', "the person's sign-in email")
    .argument('<role>', ROLES.join(' | '))
    .action(lazyAction(actions, 'addMember'));

  withStoreOptions(members.command('role'))
    .description("change a member's role (an organization keeps at least one owner)")
    .argument('<org>', 'organization (account) id')
    .argument('<email>', "the member's sign-in email")
    .argument('<role>', ROLES.join(' | '))
    .action(lazyAction(actions, 'setMemberRole'));

  withStoreOptions(members.command('remove'))
    .description('remove a member: their keys there are revoked (or handed to --keys-to), their sessions there end')
    .argument('<org>', 'organization (account) id')
    .argument('<email>', "the member's sign-in email")
    .option('--keys-to <email>', 'hand their keys to this owner or admin instead of revoking them')
    .action(lazyAction(actions, 'removeMember'));
}
