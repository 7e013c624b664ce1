import { isAbsolute, resolve } from 'node:path';

const SQLITE = 'sqlite:';

/**
 * A relative SQLite path written in server.yaml is relative to the configuration directory, like any
 * path in a file: the server and a CLI started elsewhere with `--config` then open the same database.
 * (A path given in ROUTER_STORAGE stays relative to the working directory, like any path in a shell;
 * the caller skips overridden values.) Changes `server`, the parsed server.yaml, in place.
 */
export function anchorSqlitePath(server: unknown, configDir: string): void {
  if (typeof server !== 'object' || server === null) return;
  const record = server as Record<string, unknown>;
  const storage = record.storage;
  if (typeof storage !== 'string' || !storage.startsWith(SQLITE)) return;
  const path = storage.slice(SQLITE.length);
  if (path === '' || path === ':memory:' || isAbsolute(path)) return;
  record.storage = `${SQLITE}${resolve(configDir, path)}`;
}
