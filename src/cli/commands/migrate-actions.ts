/** What `router migrate` runs (defined in migrate.ts), loaded only when it runs. */
import { loadConfig } from '../../config/load-config.js';
import { resolveConfigDir } from '../../config/resolve-config-dir.js';
import { migrateStorage } from '../../runtime/cluster/migrate-storage.js';
import { requireCurrentStorageSchema } from '../../stores/schema-versions.js';
import { emit, log } from '../cli-io.js';

export async function migrate(options: { config?: string; json?: boolean }): Promise<void> {
  const config = loadConfig(resolveConfigDir(options.config, process.env), process.env);
  const storage = await migrateStorage(config);
  // Read back rather than assumed: what the database says is what a --no-migrate instance will find.
  const schemaVersion = await requireCurrentStorageSchema(config.server.storage);
  emit(options, { migrated: true, storage, schemaVersion }, () => log.success(`database (${storage}) is at schema version ${schemaVersion}`));
}
