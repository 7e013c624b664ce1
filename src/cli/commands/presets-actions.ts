/** What `router presets …` runs (defined in presets.ts), loaded only when it runs. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { PresetInputError, checkPresetSlug, createPresetService } from '../../accounts/preset-service.js';
import { PresetLimitError, PRESETS_PER_ORGANIZATION_MAX, type PresetRecord, type PresetVersionRecord } from '../../stores/preset-store.js';
import { requireAccount, withCliContext } from '../cli-context.js';
import { CliFailure, emit, log } from '../cli-io.js';
import type { StoreCommandOptions } from '../store-options.js';
import { usageError } from '../usage-error.js';

const publicPreset = (preset: PresetRecord) => ({
  slug: preset.slug,
  name: preset.name,
  description: preset.description,
  status: preset.status,
  currentVersion: preset.currentVersion,
  createdAt: preset.createdAt,
  updatedAt: preset.updatedAt,
});
const publicVersion = (version: PresetVersionRecord) => ({ version: version.version, config: version.config, createdAt: version.createdAt, createdBy: version.createdBy });

/** `--data '{…}'` or `--data @preset.json`. */
function readConfig(command: Command, value: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      usageError(command, `cannot read ${value.slice(1)}: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    usageError(command, '--data must be a JSON object (inline, or @file)');
  }
}

function slugArgument(command: Command, slug: string): string {
  try {
    checkPresetSlug(slug);
  } catch (error) {
    usageError(command, (error as Error).message);
  }
  return slug;
}

export async function listPresets(this: Command, options: StoreCommandOptions & { account: string }): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    const { presets: list } = await store.listPresets(options.account, { offset: 0, limit: PRESETS_PER_ORGANIZATION_MAX });
    emit(options, { presets: list.map(publicPreset) }, () => {
      if (list.length === 0) log.info('no presets');
      for (const preset of list) log.log(`@preset/${preset.slug}  v${preset.currentVersion}  ${preset.status}  ${preset.name}`);
    });
  });
}

export async function showPreset(this: Command, slug: string, wanted: string | undefined, options: StoreCommandOptions & { account: string }): Promise<void> {
  const version = wanted === undefined ? undefined : /^[1-9]\d{0,5}$/.test(wanted) ? Number(wanted) : usageError(this, 'the version is a whole number from 1');
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    const found = await store.getPresetVersion(options.account, slugArgument(this, slug), version);
    if (!found) throw new CliFailure(version === undefined ? `preset ${slug} not found` : `version ${version} of preset ${slug} not found`);
    const versions = (await store.listPresetVersions(options.account, slug)) ?? [];
    emit(options, { preset: publicPreset(found.preset), version: publicVersion(found.version), versions: versions.map((entry) => ({ version: entry.version, createdAt: entry.createdAt, createdBy: entry.createdBy })) }, () => {
      log.log(`@preset/${found.preset.slug}  ${found.preset.name}  ${found.preset.status}  (current v${found.preset.currentVersion})`);
      log.log(`version ${found.version.version}, ${found.version.createdAt} by ${found.version.createdBy}:`);
      log.log(JSON.stringify(found.version.config, null, 2));
      log.log(`versions: ${versions.map((entry) => `v${entry.version}`).join(', ')}`);
    });
  });
}

export async function createPreset(this: Command, slug: string, options: StoreCommandOptions & { account: string; data: string; name?: string; description?: string }): Promise<void> {
  const config = readConfig(this, options.data);
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    let saved;
    try {
      saved = await createPresetService(store).save(
        { accountId: options.account, slug: slugArgument(this, slug), config, ...(options.name !== undefined ? { name: options.name } : {}), ...(options.description !== undefined ? { description: options.description } : {}) },
        'cli',
      );
    } catch (error) {
      if (error instanceof PresetInputError) usageError(this, `${error.field}: ${error.message}`);
      if (error instanceof PresetLimitError) throw new CliFailure(error.message);
      throw error;
    }
    emit(options, { preset: publicPreset(saved.preset), version: publicVersion(saved.version), created: saved.created }, () => {
      log.success(`${saved.created ? 'created' : 'updated'} @preset/${saved.preset.slug}: version ${saved.version.version} is current`);
    });
  });
}

export async function deletePreset(this: Command, slug: string, options: StoreCommandOptions & { account: string }): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    if (!(await store.deletePreset(options.account, slugArgument(this, slug), 'cli'))) throw new CliFailure(`preset ${slug} not found`);
    emit(options, { deleted: slug }, () => log.success(`deleted @preset/${slug}`));
  });
}
