/** The SQLite side of PresetStore, on the store's connection (each write one IMMEDIATE transaction). */
import type { Database } from 'better-sqlite3';
import { presetAuditDetails, presetVersionId, toPreset, toPresetVersion, type PresetRow, type PresetVersionRow } from '../preset-rows.js';
import { PRESET_VERSIONS_MAX, PRESETS_PER_ORGANIZATION_MAX, PresetLimitError, type PresetConfigJson, type PresetPatch, type PresetStore, type SavePresetInput } from '../preset-store.js';
import { NotFoundInStoreError } from '../store.js';
import type { SqliteHelpers } from './sqlite-account-auth.js';

function prepare(db: Database) {
  return {
    page: db.prepare<[string, number, number], PresetRow>('SELECT * FROM presets WHERE account_id = ? ORDER BY slug LIMIT ? OFFSET ?'),
    count: db.prepare<[string], number>('SELECT COUNT(*) FROM presets WHERE account_id = ?').pluck(),
    get: db.prepare<[string, string], PresetRow>('SELECT * FROM presets WHERE account_id = ? AND slug = ?'),
    activeConfigs: db.prepare<[string], PresetRow & { v_config: string }>(
      `SELECT p.*, v.config AS v_config FROM presets p JOIN preset_versions v ON v.preset_id = p.id AND v.version = p.current_version
       WHERE p.account_id = ? AND p.status = 'active' ORDER BY p.slug`,
    ),
    version: db.prepare<[string, number], PresetVersionRow>('SELECT * FROM preset_versions WHERE preset_id = ? AND version = ?'),
    versions: db.prepare<[string], PresetVersionRow>('SELECT * FROM preset_versions WHERE preset_id = ? ORDER BY version DESC'),
    accountExists: db.prepare<[string], number>('SELECT 1 FROM accounts WHERE id = ?').pluck(),
    insert: db.prepare<[PresetRow], unknown>(
      `INSERT INTO presets (id, account_id, workspace_id, slug, name, description, status, current_version, creator_person_id, created_at, updated_at)
       VALUES (@id, @account_id, @workspace_id, @slug, @name, @description, @status, @current_version, @creator_person_id, @created_at, @updated_at)`,
    ),
    bump: db.prepare<[string, string, string, string], PresetRow>(
      'UPDATE presets SET current_version = current_version + 1, name = ?, description = ?, updated_at = ? WHERE id = ? RETURNING *',
    ),
    insertVersion: db.prepare<[Omit<PresetVersionRow, 'config'> & { config: string }], unknown>(
      'INSERT INTO preset_versions (id, preset_id, version, config, created_at, created_by) VALUES (@id, @preset_id, @version, @config, @created_at, @created_by)',
    ),
    update: db.prepare<[string, string, string, string, string], PresetRow>('UPDATE presets SET name = ?, description = ?, status = ?, updated_at = ? WHERE id = ? RETURNING *'),
    deleteVersions: db.prepare<[string], unknown>('DELETE FROM preset_versions WHERE preset_id = ?'),
    delete: db.prepare<[string], unknown>('DELETE FROM presets WHERE id = ?'),
  };
}

export function createSqlitePresets(db: Database, helpers: SqliteHelpers): PresetStore {
  const { write, guarded, audit, newId, nowIso } = helpers;
  let statements: ReturnType<typeof prepare> | undefined;
  const sql = () => (statements ??= prepare(db));

  return {
    listPresets: guarded((accountId: string, page: { offset: number; limit: number }) => ({
      presets: sql().page.all(accountId, page.limit, page.offset).map(toPreset),
      total: sql().count.get(accountId) ?? 0,
    })),
    getPreset: guarded((accountId: string, slug: string) => {
      const row = sql().get.get(accountId, slug);
      return row ? toPreset(row) : null;
    }),
    listActivePresetConfigs: guarded((accountId: string) =>
      sql().activeConfigs.all(accountId).map((row) => ({ preset: toPreset(row), config: JSON.parse(row.v_config) as PresetConfigJson })),
    ),
    getPresetVersion: guarded((accountId: string, slug: string, version?: number) => {
      const row = sql().get.get(accountId, slug);
      const versionRow = row ? sql().version.get(row.id, version ?? row.current_version) : undefined;
      return row && versionRow ? { preset: toPreset(row), version: toPresetVersion(versionRow) } : null;
    }),
    listPresetVersions: guarded((accountId: string, slug: string) => {
      const row = sql().get.get(accountId, slug);
      return row ? sql().versions.all(row.id).map(toPresetVersion) : null;
    }),
    savePreset: write((input: SavePresetInput, actor: string) => {
      const at = nowIso();
      const existing = sql().get.get(input.accountId, input.slug);
      let row: PresetRow;
      if (existing) {
        if (existing.current_version >= PRESET_VERSIONS_MAX) throw new PresetLimitError(`The preset ${input.slug} has ${PRESET_VERSIONS_MAX} versions, the most one may keep; delete it and save it anew.`);
        row = sql().bump.get(input.name ?? existing.name, input.description ?? existing.description, at, existing.id)!;
      } else {
        if (sql().accountExists.get(input.accountId) === undefined) throw new NotFoundInStoreError('account', input.accountId);
        if ((sql().count.get(input.accountId) ?? 0) >= PRESETS_PER_ORGANIZATION_MAX) throw new PresetLimitError(`An organization may keep ${PRESETS_PER_ORGANIZATION_MAX} presets; delete one first.`);
        row = {
          id: newId('preset_'),
          account_id: input.accountId,
          workspace_id: input.workspaceId ?? null,
          slug: input.slug,
          name: input.name ?? input.slug,
          description: input.description ?? '',
          status: 'active',
          current_version: 1,
          creator_person_id: input.creatorPersonId ?? null,
          created_at: at,
          updated_at: at,
        };
        sql().insert.run(row);
      }
      const version = { id: presetVersionId(row.id, row.current_version), preset_id: row.id, version: row.current_version, config: JSON.stringify(input.config), created_at: at, created_by: actor };
      sql().insertVersion.run(version);
      audit(actor, existing ? 'preset.version' : 'preset.create', input.accountId, null, presetAuditDetails(row, { version: row.current_version }));
      return { preset: toPreset(row), version: toPresetVersion(version), created: !existing };
    }),
    updatePreset: write((accountId: string, slug: string, patch: PresetPatch, actor: string) => {
      const existing = sql().get.get(accountId, slug);
      if (!existing) return null;
      const row = sql().update.get(patch.name ?? existing.name, patch.description ?? existing.description, patch.status ?? existing.status, nowIso(), existing.id)!;
      audit(actor, 'preset.update', accountId, null, presetAuditDetails(row, { changed: Object.keys(patch).sort(), status: row.status }));
      return toPreset(row);
    }),
    deletePreset: write((accountId: string, slug: string, actor: string) => {
      const existing = sql().get.get(accountId, slug);
      if (!existing) return false;
      sql().deleteVersions.run(existing.id);
      sql().delete.run(existing.id);
      audit(actor, 'preset.delete', accountId, null, presetAuditDetails(existing, { versions: existing.current_version }));
      return true;
    }),
  };
}
