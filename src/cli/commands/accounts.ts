import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

const actions = () => import('./accounts-actions.js');

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').description('create and manage accounts');

  withStoreOptions(accounts.command('create'))
    .description('create an account on a plan')
    .requiredOption('--email <email>', 'contact email')
    .requiredOption('--plan <plan>', 'plan id from plans.yaml')
    .action(lazyAction(actions, 'createAccount'));

  withStoreOptions(accounts.command('list'))
    .description('list accounts')
    .action(lazyAction(actions, 'listAccounts'));

  withStoreOptions(accounts.command('set-plan'))
    .description("change an account's plan (applies to its next request)")
    .argument('<id>', 'account id')
    .argument('<plan>', 'plan id from plans.yaml')
    .action(lazyAction(actions, 'setAccountPlan'));

  withStoreOptions(accounts.command('cache-policy'))
    .description("show or set an account's rule for the response cache: allow, no_user_data (never a body naming an end user) or never (docs/caching.md)")
    .argument('<id>', 'account id')
    .argument('[policy]', 'allow | no_user_data | never (omit to show the current one)')
    .action(lazyAction(actions, 'accountCachePolicy'));

  withStoreOptions(accounts.command('invite'))
    .description('print a single-use link that lets a person create an account with this email (no mail is sent)')
    .requiredOption('--email <email>', 'the address the link is for')
    .action(lazyAction(actions, 'inviteLink'));

  withStoreOptions(accounts.command('reset-link'))
    .description("print a single-use link that sets the account's password (also a CLI-created account's first one)")
    .requiredOption('--email <email>', 'the address the link is for')
    .action(lazyAction(actions, 'resetLink'));

  withStoreOptions(accounts.command('deactivate'))
    .description('deactivate an account: its keys stop working at once and its browser sessions end')
    .argument('<id>', 'account id')
    .action(lazyAction(actions, 'deactivateAccount'));
}
