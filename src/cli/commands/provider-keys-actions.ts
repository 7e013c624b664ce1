/** What `router provider-keys …` runs (defined in provider-keys.ts), loaded only when one of them runs. */
import type { Command } from 'commander';
import { sealSecret } from '../../core/secret-box.js';
import type { ProviderKeyRecord } from '../../stores/store.js';
import { requireAccount, withCliContext } from '../cli-context.js';
import { CliFailure, emit, log } from '../cli-io.js';
import type { StoreCommandOptions } from '../store-options.js';
import { usageError } from '../usage-error.js';

function publicProviderKey(record: ProviderKeyRecord) {
  return { accountId: record.accountId, provider: record.providerId, display: `…${record.last4}`, createdAt: record.createdAt, updatedAt: record.updatedAt };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

export async function setProviderKey(this: Command, options: StoreCommandOptions & { account: string; provider: string; key?: string; keyStdin?: boolean }): Promise<void> {
  if (Boolean(options.key) === Boolean(options.keyStdin)) usageError(this, 'give the key with exactly one of --key or --key-stdin');
  const key = options.key ?? (await readStdin());
  if (options.keyStdin && key === '') usageError(this, 'the provider key read from standard input is empty');
  if (key.length < 8) usageError(this, 'the provider key is too short to be real');
  await withCliContext(options.config, async ({ config, store }) => {
    if (!config.providers.providers.some((provider) => provider.id === options.provider)) {
      usageError(this, `unknown provider '${options.provider}' (providers: ${config.providers.providers.map((p) => p.id).join(', ')})`);
    }
    const secret = config.server.secretKey?.reveal();
    if (!secret) throw new CliFailure('ROUTER_SECRET_KEY must be set to store provider keys (they are encrypted with it)');
    await requireAccount(store, options.account);
    const record = await store.setProviderKey({ accountId: options.account, providerId: options.provider, sealed: sealSecret(key, secret), last4: key.slice(-4) }, 'cli');
    emit(options, { providerKey: publicProviderKey(record) }, () => log.success(`stored ${options.provider} key …${record.last4} for ${record.accountId}`));
  });
}

export async function listProviderKeys(options: StoreCommandOptions & { account: string }): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    const list = await store.listProviderKeys(options.account);
    emit(options, { providerKeys: list.map(publicProviderKey) }, () => {
      if (list.length === 0) log.info('no provider keys');
      for (const record of list) log.log(`${record.providerId}  …${record.last4}  updated ${record.updatedAt}`);
    });
  });
}

export async function removeProviderKey(options: StoreCommandOptions & { account: string; provider: string }): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    const removed = await store.removeProviderKey(options.account, options.provider, 'cli');
    if (!removed) throw new CliFailure(`account ${options.account} has no ${options.provider} key`);
    emit(options, { removed: { accountId: options.account, provider: options.provider } }, () => log.success(`removed ${options.provider} key of ${options.account}`));
  });
}
