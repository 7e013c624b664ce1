import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

const actions = () => import('./provider-keys-actions.js');

export function registerProviderKeyCommands(program: Command): void {
  const providerKeys = program.command('provider-keys').description("an account's own provider keys (bring your own key)");

  withStoreOptions(providerKeys.command('set'))
    .description('store (encrypted) an account key for a provider')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--provider <id>', 'provider id from providers.yaml')
    .option('--key <key>', 'the provider key (prefer --key-stdin: arguments can show in process lists)')
    .option('--key-stdin', 'read the provider key from standard input')
    .action(lazyAction(actions, 'setProviderKey'));

  withStoreOptions(providerKeys.command('list'))
    .description("list an account's provider keys (last 4 characters only)")
    .requiredOption('--account <id>', 'account id')
    .action(lazyAction(actions, 'listProviderKeys'));

  withStoreOptions(providerKeys.command('remove'))
    .description("remove an account's key for a provider")
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--provider <id>', 'provider id')
    .action(lazyAction(actions, 'removeProviderKey'));
}
