/** What `router accounts …` runs (defined in accounts.ts), loaded only when one of them runs. */
import type { Command } from 'commander';
import type { Account } from '../../stores/store.js';
import { withCliContext } from '../cli-context.js';
import { issueLink, LinkRefusedError, type IssuedLink } from '../../accounts/link-tokens.js';
import { systemClock } from '../../core/clock.js';
import { parseEmailAddress } from '../../core/email-address.js';
import { CliFailure, emit, log } from '../cli-io.js';
import type { StoreCommandOptions } from '../store-options.js';
import { requirePlan, usageError } from '../usage-error.js';
import { ACCOUNT_CACHE_POLICIES, type AccountCachePolicy } from '../../stores/response-cache-store.js';

const NOT_AN_ADDRESS = (typed: string) => `'${typed}' is not one plain email address (like name@example.com: no name, no list, a domain with a dot)`;

function describe(account: Account): string {
  return `${account.id}  ${account.email}  plan=${account.plan}  status=${account.status}  created=${account.createdAt}`;
}

export async function createAccount(this: Command, options: StoreCommandOptions & { email: string; plan: string }): Promise<void> {
  const email = parseEmailAddress(options.email);
  if (email === null) usageError(this, NOT_AN_ADDRESS(options.email));
  await withCliContext(options.config, async ({ config, store }) => {
    requirePlan(this, config, options.plan);
    const account = await store.createAccount({ email, plan: options.plan }, 'cli');
    emit(options, { account }, () => log.success(`created account ${describe(account)}`));
  });
}

export async function listAccounts(options: StoreCommandOptions): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    const list = await store.listAccounts();
    emit(options, { accounts: list }, () => {
      if (list.length === 0) log.info('no accounts');
      for (const account of list) log.log(describe(account));
    });
  });
}

export async function setAccountPlan(this: Command, id: string, plan: string, options: StoreCommandOptions): Promise<void> {
  await withCliContext(options.config, async ({ config, store }) => {
    requirePlan(this, config, plan);
    const account = await store.setAccountPlan(id, plan, 'cli');
    emit(options, { account }, () => log.success(`account ${account.id} is now on plan ${account.plan}`));
  });
}

export async function accountCachePolicy(this: Command, id: string, policy: string | undefined, options: StoreCommandOptions): Promise<void> {
  if (policy !== undefined && !(ACCOUNT_CACHE_POLICIES as readonly string[]).includes(policy)) usageError(this, `'${policy}' is not a cache policy: use ${ACCOUNT_CACHE_POLICIES.join(', ')}`);
  await withCliContext(options.config, async ({ store }) => {
    if (policy !== undefined) await store.setResponseCachePolicy(id, policy as AccountCachePolicy, 'cli');
    const current = await store.getResponseCachePolicy(id);
    emit(options, { accountId: id, responseCache: current }, () => log.success(`account ${id}: response cache ${current}`));
  });
}

export async function inviteLink(this: Command, options: StoreCommandOptions & { email: string }): Promise<void> {
  await printLink(this, 'invite', options);
}

export async function resetLink(this: Command, options: StoreCommandOptions & { email: string }): Promise<void> {
  await printLink(this, 'reset', options);
}

async function printLink(command: Command, kind: 'invite' | 'reset', options: StoreCommandOptions & { email: string }): Promise<void> {
  if (parseEmailAddress(options.email) === null) usageError(command, NOT_AN_ADDRESS(options.email));
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
}

export async function deactivateAccount(id: string, options: StoreCommandOptions): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    const account = await store.deactivateAccount(id, 'cli');
    emit(options, { account }, () => log.success(`account ${account.id} deactivated`));
  });
}
