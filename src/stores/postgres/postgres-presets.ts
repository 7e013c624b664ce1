/** The PostgreSQL side of PresetStore, on the store's pool. */
import type { Pool } from 'pg';
import { presetAuditDetails, presetVersionId, toPreset, toPresetVersion, type PresetRow, type PresetVersionRow } from '../preset-rows.js';
import { PRESET_VERSIONS_MAX, PRESETS_PER_ORGANIZATION_MAX, PresetLimitError, type PresetConfigJson, type PresetStore } from '../preset-store.js';
import { NotFoundInStoreError } from '../store.js';
import type { PostgresHelpers } from './postgres-account-auth.js';
import { inTransaction, queryRows, type Queryable } from './postgres-session.js';

const presetOf = async (db: Queryable, accountId: string, slug: string): Promise<PresetRow | undefined> =>
  (await queryRows<PresetRow>(db, 'SELECT * FROM presets WHERE account_id = $1 AND slug = $2', [accountId, slug]))[0];

export function createPostgresPresets(pool: Pool, helpers: PostgresHelpers): PresetStore {
  const { audit, newId, nowIso } = helpers;
  return {
    listPresets: async (accountId, page) => {
      const rows = await queryRows<PresetRow>(pool, 'SELECT * FROM presets WHERE account_id = $1 ORDER BY slug LIMIT $2 OFFSET $3', [accountId, page.limit, page.offset]);
      const [count] = await queryRows<{ total: string }>(pool, 'SELECT COUNT(*) AS total FROM presets WHERE account_id = $1', [accountId]);
      return { presets: rows.map(toPreset), total: Number(count?.total ?? 0) };
    },
    getPreset: async (accountId, slug) => {
      const row = await presetOf(pool, accountId, slug);
      return row ? toPreset(row) : null;
    },
    listActivePresetConfigs: async (accountId) => {
      const rows = await queryRows<PresetRow & { v_config: PresetConfigJson }>(
        pool,
        `SELECT p.*, v.config AS v_config FROM presets p JOIN preset_versions v ON v.preset_id = p.id AND v.version = p.current_version
         WHERE p.account_id = $1 AND p.status = 'active' ORDER BY p.slug`,
        [accountId],
      );
      return rows.map((row) => ({ preset: toPreset(row), config: row.v_config }));
    },
    getPresetVersion: async (accountId, slug, version) => {
      const [row] = await queryRows<PresetRow & { v_id: string; v_version: number; v_config: PresetConfigJson; v_created_at: Date; v_created_by: string }>(
        pool,
        `SELECT p.*, v.id AS v_id, v.version AS v_version, v.config AS v_config, v.created_at AS v_created_at, v.created_by AS v_created_by
         FROM presets p JOIN preset_versions v ON v.preset_id = p.id AND v.version = COALESCE($3, p.current_version)
         WHERE p.account_id = $1 AND p.slug = $2`,
        [accountId, slug, version ?? null],
      );
      if (!row) return null;
      return {
        preset: toPreset(row),
        version: toPresetVersion({ id: row.v_id, preset_id: row.id, version: row.v_version, config: row.v_config, created_at: row.v_created_at, created_by: row.v_created_by }),
      };
    },
    listPresetVersions: async (accountId, slug) => {
      const row = await presetOf(pool, accountId, slug);
      if (!row) return null;
      return (await queryRows<PresetVersionRow>(pool, 'SELECT * FROM preset_versions WHERE preset_id = $1 ORDER BY version DESC', [row.id])).map(toPresetVersion);
    },
    savePreset: (input, actor) =>
      inTransaction(pool, async (db) => {
        const at = nowIso();
        const [account] = await queryRows(db, 'SELECT 1 FROM accounts WHERE id = $1', [input.accountId]);
        if (!account) throw new NotFoundInStoreError('account', input.accountId);
        const [count] = await queryRows<{ total: string }>(db, 'SELECT COUNT(*) AS total FROM presets WHERE account_id = $1', [input.accountId]);
        // One statement creates or bumps the version, so two saves at once (even of a new slug) take turns on the row.
        const [row] = await queryRows<PresetRow & { inserted: boolean }>(
          db,
          `INSERT INTO presets (id, account_id, workspace_id, slug, name, description, status, current_version, creator_person_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, COALESCE($5, $4), COALESCE($6, ''), 'active', 1, $7, $8, $8)
           ON CONFLICT (account_id, slug) DO UPDATE SET current_version = presets.current_version + 1,
             name = COALESCE($5, presets.name), description = COALESCE($6, presets.description), updated_at = $8
           RETURNING *, (xmax = 0) AS inserted`,
          [newId('preset_'), input.accountId, input.workspaceId ?? null, input.slug, input.name ?? null, input.description ?? null, input.creatorPersonId ?? null, at],
        );
        if (row!.inserted && Number(count?.total ?? 0) >= PRESETS_PER_ORGANIZATION_MAX) throw new PresetLimitError(`An organization may keep ${PRESETS_PER_ORGANIZATION_MAX} presets; delete one first.`);
        if (row!.current_version > PRESET_VERSIONS_MAX) throw new PresetLimitError(`The preset ${input.slug} has ${PRESET_VERSIONS_MAX} versions, the most one may keep; delete it and save it anew.`);
        const [version] = await queryRows<PresetVersionRow>(
          db,
          'INSERT INTO preset_versions (id, preset_id, version, config, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
          [presetVersionId(row!.id, row!.current_version), row!.id, row!.current_version, JSON.stringify(input.config), at, actor],
        );
        await audit(db, actor, row!.inserted ? 'preset.create' : 'preset.version', input.accountId, null, presetAuditDetails(row!, { version: row!.current_version }));
        return { preset: toPreset(row!), version: toPresetVersion(version!), created: row!.inserted };
      }),
    updatePreset: (accountId, slug, patch, actor) =>
      inTransaction(pool, async (db) => {
        const [row] = await queryRows<PresetRow>(
          db,
          `UPDATE presets SET name = COALESCE($3, name), description = COALESCE($4, description), status = COALESCE($5, status), updated_at = $6
           WHERE account_id = $1 AND slug = $2 RETURNING *`,
          [accountId, slug, patch.name ?? null, patch.description ?? null, patch.status ?? null, nowIso()],
        );
        if (!row) return null;
        await audit(db, actor, 'preset.update', accountId, null, presetAuditDetails(row, { changed: Object.keys(patch).sort(), status: row.status }));
        return toPreset(row);
      }),
    deletePreset: (accountId, slug, actor) =>
      inTransaction(pool, async (db) => {
        const [row] = await queryRows<PresetRow>(db, 'DELETE FROM presets WHERE account_id = $1 AND slug = $2 RETURNING *', [accountId, slug]);
        if (!row) return false;
        await audit(db, actor, 'preset.delete', accountId, null, presetAuditDetails(row, { versions: row.current_version }));
        return true;
      }),
  };
}
