import type { Command } from 'commander';
import type { Account } from '../../stores/store.js';
import { withCliContext, withStoreOptions, type StoreCommandOptions } from '../cli-context.js';
import { emit, log } from '../cli-io.js';
import { requirePlan, usageError } from '../usage-error.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

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
      if (!EMAIL.test(options.email)) usageError(this, `'${options.email}' is not an email address`);
      await withCliContext(options.config, async ({ config, store }) => {
        requirePlan(this, config, options.plan);
        const account = await store.createAccount({ email: options.email, plan: options.plan }, 'cli');
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

  withStoreOptions(accounts.command('deactivate'))
    .description('deactivate an account: its keys stop working at once')
    .argument('<id>', 'account id')
    .action(async (id: string, options: StoreCommandOptions) => {
      await withCliContext(options.config, async ({ store }) => {
        const account = await store.deactivateAccount(id, 'cli');
        emit(options, { account }, () => log.success(`account ${account.id} deactivated`));
      });
    });
}
