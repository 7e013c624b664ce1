import type { Command } from 'commander';
import type { ApiKeyRecord } from '../../stores/store.js';
import { requireAccount, withCliContext, withStoreOptions, type StoreCommandOptions } from '../cli-context.js';
import { emit, log } from '../cli-io.js';
import { parseSeconds, usageError } from '../usage-error.js';
import { isReservedKeyName } from '../../accounts/key-service.js';

/** What a listing may show of a key: never the hash, never the key. */
export function publicKey(record: ApiKeyRecord) {
  return {
    id: record.id,
    accountId: record.accountId,
    name: record.name,
    display: `${record.prefix}…${record.last4}`,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt,
    expiresAt: record.expiresAt,
  };
}

function describe(record: ApiKeyRecord): string {
  const state = record.revokedAt ? `revoked ${record.revokedAt}` : record.expiresAt ? `expires ${record.expiresAt}` : 'active';
  return `${record.id}  ${record.prefix}…${record.last4}  ${record.name ?? ''}  ${state}`;
}

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('generate, rotate and revoke API keys');

  withStoreOptions(keys.command('create'))
    .description('generate a key for an account (shown once)')
    .requiredOption('--account <id>', 'account id')
    .option('--name <name>', 'a label for the key')
    .action(async function (this: Command, options: StoreCommandOptions & { account: string; name?: string }) {
      if (options.name !== undefined && isReservedKeyName(options.name)) usageError(this, `'${options.name}' is kept for the account app's playground key; choose another name`);
      await withCliContext(options.config, async ({ config, keys: service }) => {
        if (!config.server.secretKey) log.warn('ROUTER_SECRET_KEY is not set: this key is hashed without a server secret, so only a router that also runs without one accepts it.');
        const { key, record } = await service.issue(options.account, options.name ?? null, 'cli');
        emit(options, { id: record.id, key, apiKey: publicKey(record) }, () => {
          log.success(`created key ${record.id} for account ${record.accountId}`);
          log.log(`\n  ${key}\n`);
          log.warn('This is the only time the full key is shown. Store it in a secret manager.');
        });
      });
    });

  withStoreOptions(keys.command('list'))
    .description("list an account's keys (prefix and last 4 characters only)")
    .requiredOption('--account <id>', 'account id')
    .action(async (options: StoreCommandOptions & { account: string }) => {
      await withCliContext(options.config, async ({ store }) => {
        await requireAccount(store, options.account);
        const list = await store.listApiKeys(options.account);
        emit(options, { keys: list.map(publicKey) }, () => {
          if (list.length === 0) log.info('no keys');
          for (const record of list) log.log(describe(record));
        });
      });
    });

  withStoreOptions(keys.command('rotate'))
    .description('issue a replacement key and revoke the old one (now, or after a grace period)')
    .argument('<keyId>', 'key id')
    .option('--grace <seconds>', 'keep the old key working this long', '0')
    .action(async function (this: Command, keyId: string, options: StoreCommandOptions & { grace: string }) {
      const grace = parseSeconds(this, options.grace);
      await withCliContext(options.config, async ({ keys: service }) => {
        const { key, record, revoked } = await service.rotate(keyId, grace, 'cli');
        emit(options, { id: record.id, key, apiKey: publicKey(record), replaced: publicKey(revoked) }, () => {
          log.success(`rotated ${revoked.id} → ${record.id}${grace > 0 ? ` (old key works until ${revoked.expiresAt})` : ' (old key revoked now)'}`);
          log.log(`\n  ${key}\n`);
          log.warn('This is the only time the full key is shown.');
        });
      });
    });

  withStoreOptions(keys.command('revoke'))
    .description('revoke a key now')
    .argument('<keyId>', 'key id')
    .action(async (keyId: string, options: StoreCommandOptions) => {
      await withCliContext(options.config, async ({ keys: service }) => {
        const revoked = await service.revoke(keyId, 'cli');
        emit(options, { apiKey: publicKey(revoked) }, () => log.success(`revoked ${revoked.id}`));
      });
    });
}
