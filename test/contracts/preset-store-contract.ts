/**
 * Presets storage (PresetStore, version 15), run against SQLite and PostgreSQL: versions numbered per
 * preset with the newest current, organization scope (another organization neither sees nor changes a
 * slug it shares), pages with a total, concurrent saves each getting their own version, delete, and an
 * audit trail that names the preset and version but never its configuration.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/stores/store.js';
import { ManualClock, type MakeStore } from './store-contract.js';

const START = Date.UTC(2026, 10, 15, 12, 0, 0);

export function runPresetStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name} preset store contract`, () => {
    let clock: ManualClock;
    let store: Store;
    beforeEach(async () => {
      clock = new ManualClock(START);
      store = await makeStore(clock);
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates version 1, adds versions on later saves, and keeps every version readable', async () => {
      const org = await store.createAccount({ email: 'p@example.com', plan: 'pro' }, 'cli');
      const first = await store.savePreset({ accountId: org.id, slug: 'coder', name: 'Coder', config: { model: 'router/auto', temperature: 0.2 } }, 'key:key_m');
      expect(first.created).toBe(true);
      expect(first.preset).toMatchObject({ accountId: org.id, slug: 'coder', name: 'Coder', description: '', status: 'active', currentVersion: 1, workspaceId: null });
      expect(first.version).toMatchObject({ version: 1, config: { model: 'router/auto', temperature: 0.2 }, createdBy: 'key:key_m' });
      clock.advance(1000);
      const second = await store.savePreset({ accountId: org.id, slug: 'coder', config: { model: 'router/auto', temperature: 0.7 } }, 'cli');
      expect(second.created).toBe(false);
      // The name stays when a new version names none.
      expect(second.preset).toMatchObject({ id: first.preset.id, name: 'Coder', currentVersion: 2, createdAt: first.preset.createdAt, updatedAt: new Date(START + 1000).toISOString() });
      expect((await store.getPresetVersion(org.id, 'coder'))?.version.config).toEqual({ model: 'router/auto', temperature: 0.7 });
      expect((await store.getPresetVersion(org.id, 'coder', 1))?.version.config).toEqual({ model: 'router/auto', temperature: 0.2 });
      expect(await store.getPresetVersion(org.id, 'coder', 3)).toBeNull();
      expect((await store.listPresetVersions(org.id, 'coder'))?.map((version) => version.version)).toEqual([2, 1]);
    });

    it('keeps each organization to its own presets, even under the same slug', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'pro' }, 'cli');
      const b = await store.createAccount({ email: 'b@example.com', plan: 'pro' }, 'cli');
      await store.savePreset({ accountId: a.id, slug: 'shared', config: { temperature: 1 } }, 'cli');
      expect(await store.getPreset(b.id, 'shared')).toBeNull();
      expect(await store.getPresetVersion(b.id, 'shared')).toBeNull();
      expect(await store.listPresetVersions(b.id, 'shared')).toBeNull();
      expect(await store.updatePreset(b.id, 'shared', { status: 'disabled' }, 'cli')).toBeNull();
      expect(await store.deletePreset(b.id, 'shared', 'cli')).toBe(false);
      const theirs = await store.savePreset({ accountId: b.id, slug: 'shared', config: { temperature: 0 } }, 'cli');
      expect(theirs).toMatchObject({ created: true, version: { version: 1 } });
      expect((await store.getPresetVersion(a.id, 'shared'))?.version.config).toEqual({ temperature: 1 });
      expect((await store.listPresets(b.id, { offset: 0, limit: 10 })).total).toBe(1);
    });

    it('lists by slug in pages with the total', async () => {
      const org = await store.createAccount({ email: 'l@example.com', plan: 'pro' }, 'cli');
      for (const slug of ['delta', 'alpha', 'charlie', 'bravo']) await store.savePreset({ accountId: org.id, slug, config: {} }, 'cli');
      const page = await store.listPresets(org.id, { offset: 1, limit: 2 });
      expect(page.total).toBe(4);
      expect(page.presets.map((preset) => preset.slug)).toEqual(['bravo', 'charlie']);
    });

    it('lists the active presets with their current configuration, by slug, in one call, and no other organization’s', async () => {
      const org = await store.createAccount({ email: 'c@example.com', plan: 'pro' }, 'cli');
      const other = await store.createAccount({ email: 'o@example.com', plan: 'pro' }, 'cli');
      await store.savePreset({ accountId: org.id, slug: 'zeta', config: { model: 'router/frontier' } }, 'cli');
      await store.savePreset({ accountId: org.id, slug: 'zeta', config: { model: 'openai/gpt-5', temperature: 0.2 } }, 'cli');
      await store.savePreset({ accountId: org.id, slug: 'alpha', config: {} }, 'cli');
      await store.savePreset({ accountId: org.id, slug: 'off', config: { model: 'router/frontier' } }, 'cli');
      await store.updatePreset(org.id, 'off', { status: 'disabled' }, 'cli');
      await store.savePreset({ accountId: other.id, slug: 'theirs', config: {} }, 'cli');
      const listed = await store.listActivePresetConfigs(org.id);
      expect(listed.map(({ preset, config }) => [preset.slug, preset.currentVersion, config])).toEqual([
        ['alpha', 1, {}],
        ['zeta', 2, { model: 'openai/gpt-5', temperature: 0.2 }],
      ]);
    });

    it('gives concurrent saves distinct versions', async () => {
      const org = await store.createAccount({ email: 'c@example.com', plan: 'pro' }, 'cli');
      const saves = await Promise.all(Array.from({ length: 8 }, (_, i) => store.savePreset({ accountId: org.id, slug: 'busy', config: { seed: i } }, 'cli')));
      expect(saves.map((save) => save.version.version).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(saves.filter((save) => save.created)).toHaveLength(1);
      expect((await store.getPreset(org.id, 'busy'))?.currentVersion).toBe(8);
    });

    it('updates name, description and status without a new version, deletes with its versions, and audits without the configuration', async () => {
      const org = await store.createAccount({ email: 'u@example.com', plan: 'pro' }, 'cli');
      await store.savePreset({ accountId: org.id, slug: 'writer', config: { system: 'a secret system prompt' } }, 'person:psn_1');
      const updated = await store.updatePreset(org.id, 'writer', { description: 'Drafts', status: 'disabled' }, 'key:key_m');
      expect(updated).toMatchObject({ description: 'Drafts', status: 'disabled', currentVersion: 1, name: 'writer' });
      expect(await store.deletePreset(org.id, 'writer', 'key:key_m')).toBe(true);
      expect(await store.getPreset(org.id, 'writer')).toBeNull();
      expect(await store.deletePreset(org.id, 'writer', 'key:key_m')).toBe(false);
      // The slug is free again and starts from version 1.
      expect((await store.savePreset({ accountId: org.id, slug: 'writer', config: {} }, 'cli')).version.version).toBe(1);
      const events = (await store.listAuditEvents({ accountId: org.id })).filter((event) => event.action.startsWith('preset.'));
      expect(events.map((event) => [event.action, event.actor]).sort()).toEqual(
        [
          ['preset.create', 'person:psn_1'],
          ['preset.update', 'key:key_m'],
          ['preset.delete', 'key:key_m'],
          ['preset.create', 'cli'],
        ].sort(),
      );
      expect(JSON.stringify(events)).not.toContain('a secret system prompt');
    });
  });
}
