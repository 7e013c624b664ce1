import type { Command } from 'commander';
import type { Account } from '../../stores/store.js';
import { withCliContext, withStoreOptions, type StoreCommandOptions } from '../cli-context.js';
import { issueLink, LinkRefusedError, type IssuedLink } from '../../accounts/link-tokens.js';
import { systemClock } from '../../core/clock.js';
import { parseEmailAddress } from '../../core/email-address.js';
import { CliFailure, emit, log } from '../cli-io.js';
import { requirePlan, usageError } from '../usage-error.js';


const NOT_AN_ADDRESS = (typed: string) => `'${typed}' is not one plain email address (like name@example.com: no name, no list, a domain with a dot)`;

function describe(account: Account): string {
  return `${account.id}  ${account.email}  plan=${account.plan}  status=${account.status}  created=${account.createdAt}`;
}

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').description('create and manage accounts');

  withStoreOptions(accounts.command('create'))
    .description('create an account on a plan')
    .requiredOption('--email <email>', 'contact email')
    .requiredOption('--plan <plan>', 'plan id from plans.yaml')
    .action(async function (this: Command, options: StoreCommandOptions & { email: string; plan: string }) {
      const email = parseEmailAddress(options.email);
      if (email === null) usageError(this, NOT_AN_ADDRESS(options.email));
      await withCliContext(options.config, async ({ config, store }) => {
        requirePlan(this, config, options.plan);
        const account = await store.createAccount({ email, plan: options.plan }, 'cli');
        emit(options, { account }, () => log.success(`created account ${describe(account)}`));
      });
    });

  withStoreOptions(accounts.command('list'))
    .description('list accounts')
    .action(async (options: StoreCommandOptions) => {
      await withCliContext(options.config, async ({ store }) => {
        const list = await store.listAccounts();
        emit(options, { accounts: list }, () => {
          if (list.length === 0) log.info('no accounts');
          for (const account of list) log.log(describe(account));
        });
      });
    });

  withStoreOptions(accounts.command('set-plan'))
    .description("change an account's plan (applies to its next request)")
    .argument('<id>', 'account id')
    .argument('<plan>', 'plan id from plans.yaml')
    .action(async function (this: Command, id: string, plan: string, options: StoreCommandOptions) {
      await withCliContext(options.config, async ({ config, store }) => {
        requirePlan(this, config, plan);
        const account = await store.setAccountPlan(id, plan, 'cli');
        emit(options, { account }, () => log.success(`account ${account.id} is now on plan ${account.plan}`));
      });
    });

  const linkCommand = (name: 'invite' | 'reset-link', kind: 'invite' | 'reset', description: string) =>
    withStoreOptions(accounts.command(name))
      .description(description)
      .requiredOption('--email <email>', 'the address the link is for')
      .action(async function (this: Command, options: StoreCommandOptions & { email: string }) {
        if (parseEmailAddress(options.email) === null) usageError(this, NOT_AN_ADDRESS(options.email));
        await withCliContext(options.config, async ({ config, store }) => {
          let link: IssuedLink;
          try {
            link = await issueLink({ store, clock: systemClock, server: config.server }, kind, options.email, 'cli');
          } catch (error) {
            throw error instanceof LinkRefusedError ? new CliFailure(error.message) : error;
          }
          emit(options, { link }, () => {
            log.success(`${kind === 'invite' ? 'invitation' : 'password reset'} link for ${link.email}, single use, valid until ${link.expiresAt}:`);
            log.log(link.url);
          });
        });
      });
  linkCommand('invite', 'invite', 'print a single-use link that lets a person create an account with this email (no mail is sent)');
  linkCommand('reset-link', 'reset', "print a single-use link that sets the account's password (also a CLI-created account's first one)");

  withStoreOptions(accounts.command('deactivate'))
    .description('deactivate an account: its keys stop working at once and its browser sessions end')
    .argument('<id>', 'account id')
    .action(async (id: string, options: StoreCommandOptions) => {
      await withCliContext(options.config, async ({ store }) => {
        const account = await store.deactivateAccount(id, 'cli');
        emit(options, { account }, () => log.success(`account ${account.id} deactivated`));
      });
    });
}
