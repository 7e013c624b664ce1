/** What `router keys …` runs (defined in keys.ts), loaded only when one of them runs. */
import type { Command } from 'commander';
import type { ApiKeyRecord } from '../../stores/store.js';
import { requireAccount, withCliContext } from '../cli-context.js';
import { emit, log } from '../cli-io.js';
import type { StoreCommandOptions } from '../store-options.js';
import { parseSeconds, usageError } from '../usage-error.js';
import { isReservedKeyName } from '../../accounts/key-service.js';

/** What a listing may show of a key: never the hash, never the key. */
export function publicKey(record: ApiKeyRecord) {
  return {
    id: record.id,
    accountId: record.accountId,
    name: record.name,
    display: `${record.prefix}…${record.last4}`,
    kind: record.kind,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt,
    expiresAt: record.expiresAt,
  };
}

function describe(record: ApiKeyRecord): string {
  const state = record.revokedAt ? `revoked ${record.revokedAt}` : record.expiresAt ? `expires ${record.expiresAt}` : 'active';
  return `${record.id}  ${record.prefix}…${record.last4}  ${record.name ?? ''}  ${state}`;
}

export async function createKey(this: Command, options: StoreCommandOptions & { account: string; name?: string; management?: boolean }): Promise<void> {
  if (options.name !== undefined && isReservedKeyName(options.name)) usageError(this, `'${options.name}' is kept for the account app's playground key; choose another name`);
  await withCliContext(options.config, async ({ config, keys: service }) => {
    if (!config.server.secretKey) log.warn('ROUTER_SECRET_KEY is not set: this key is hashed without a server secret, so only a router that also runs without one accepts it.');
    const { key, record } = await service.issue(options.account, options.name ?? null, 'cli', { kind: options.management ? 'management' : 'inference' });
    emit(options, { id: record.id, key, apiKey: publicKey(record) }, () => {
      log.success(`created ${record.kind === 'management' ? 'management ' : ''}key ${record.id} for account ${record.accountId}`);
      log.log(`\n  ${key}\n`);
      log.warn('This is the only time the full key is shown. Store it in a secret manager.');
    });
  });
}

export async function listKeys(options: StoreCommandOptions & { account: string }): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    const list = await store.listApiKeys(options.account);
    emit(options, { keys: list.map(publicKey) }, () => {
      if (list.length === 0) log.info('no keys');
      for (const record of list) log.log(describe(record));
    });
  });
}

export async function rotateKey(this: Command, keyId: string, options: StoreCommandOptions & { grace: string }): Promise<void> {
  const grace = parseSeconds(this, options.grace);
  await withCliContext(options.config, async ({ keys: service }) => {
    const { key, record, revoked } = await service.rotate(keyId, grace, 'cli');
    emit(options, { id: record.id, key, apiKey: publicKey(record), replaced: publicKey(revoked) }, () => {
      log.success(`rotated ${revoked.id} → ${record.id}${grace > 0 ? ` (old key works until ${revoked.expiresAt})` : ' (old key revoked now)'}`);
      log.log(`\n  ${key}\n`);
      log.warn('This is the only time the full key is shown.');
    });
  });
}

export async function revokeKey(keyId: string, options: StoreCommandOptions): Promise<void> {
  await withCliContext(options.config, async ({ keys: service }) => {
    const revoked = await service.revoke(keyId, 'cli');
    emit(options, { apiKey: publicKey(revoked) }, () => log.success(`revoked ${revoked.id}`));
  });
}
