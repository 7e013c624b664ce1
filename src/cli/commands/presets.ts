/**
 * `router presets list|show|create|delete --account …`: an organization's presets as the operator manages
 * them (actor `cli`). `create` makes the preset, or adds a version to the one with that slug, from a
 * JSON configuration (`--data`, inline or `@file`, as curl takes it; `--config` is the configuration directory), checked by the same preset service as /v1/presets and the app.
 * What each runs is in presets-actions.ts.
 */
import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

export function registerPresetCommands(program: Command): void {
  const presets = program.command('presets').description("an organization's presets (@preset/<slug>): saved model, provider preferences, system prompt and parameters");

  withStoreOptions(presets.command('list'))
    .description("list an organization's presets by slug")
    .requiredOption('--account <id>', 'organization (account) id')
    .action(lazyAction(() => import('./presets-actions.js'), 'listPresets'));

  withStoreOptions(presets.command('show'))
    .description('show a preset with its current configuration (or that of one version) and its versions')
    .argument('<slug>', 'the preset slug')
    .argument('[version]', 'one version instead of the current one')
    .requiredOption('--account <id>', 'organization (account) id')
    .action(lazyAction(() => import('./presets-actions.js'), 'showPreset'));

  withStoreOptions(presets.command('create'))
    .description('create a preset, or add a version to the one with this slug (it becomes current)')
    .argument('<slug>', 'the preset slug (lowercase letters, digits, hyphens)')
    .requiredOption('--account <id>', 'organization (account) id')
    .requiredOption('--data <json>', 'the configuration: a JSON object, or @file (fields: model, provider, system, temperature, top_p, top_k, max_tokens, stop, seed, presence_penalty, frequency_penalty, reasoning_effort)')
    .option('--name <name>', 'a display name (default: the slug)')
    .option('--description <text>', 'what it is for')
    .action(lazyAction(() => import('./presets-actions.js'), 'createPreset'));

  withStoreOptions(presets.command('delete'))
    .description('delete a preset and every version of it')
    .argument('<slug>', 'the preset slug')
    .requiredOption('--account <id>', 'organization (account) id')
    .action(lazyAction(() => import('./presets-actions.js'), 'deletePreset'));
}
