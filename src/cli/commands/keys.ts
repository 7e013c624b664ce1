import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

const actions = () => import('./keys-actions.js');

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('generate, rotate and revoke API keys');

  withStoreOptions(keys.command('create'))
    .description('generate a key for an account (shown once)')
    .requiredOption('--account <id>', 'account id')
    .option('--name <name>', 'a label for the key')
    .option('--management', 'a management key: manages the account\'s keys through /v1/keys and never calls a model')
    .action(lazyAction(actions, 'createKey'));

  withStoreOptions(keys.command('list'))
    .description("list an account's keys (prefix and last 4 characters only)")
    .requiredOption('--account <id>', 'account id')
    .action(lazyAction(actions, 'listKeys'));

  withStoreOptions(keys.command('rotate'))
    .description('issue a replacement key and revoke the old one (now, or after a grace period)')
    .argument('<keyId>', 'key id')
    .option('--grace <seconds>', 'keep the old key working this long', '0')
    .action(lazyAction(actions, 'rotateKey'));

  withStoreOptions(keys.command('revoke'))
    .description('revoke a key now')
    .argument('<keyId>', 'key id')
    .action(lazyAction(actions, 'revokeKey'));
}
