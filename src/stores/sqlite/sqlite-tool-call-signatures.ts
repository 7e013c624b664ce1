/** The SQLite side of ToolCallSignatureStore, on the store's connection. */
import type { Database } from 'better-sqlite3';
import type { ToolCallSignature, ToolCallSignatureStore } from '../tool-call-signature-store.js';
import type { SqliteHelpers } from './sqlite-account-auth.js';

interface SignatureRow { account_id: string; call_id: string; signature: string; expires_at_ms: number }

function prepare(db: Database) {
  return {
    put: db.prepare<[SignatureRow], unknown>(
      `INSERT INTO tool_call_signatures (account_id, call_id, signature, expires_at_ms)
       VALUES (@account_id, @call_id, @signature, @expires_at_ms)
       ON CONFLICT (account_id, call_id) DO UPDATE SET signature = excluded.signature, expires_at_ms = excluded.expires_at_ms`,
    ),
    sweep: db.prepare<[number], unknown>('DELETE FROM tool_call_signatures WHERE expires_at_ms <= ?'),
  };
}

export function createSqliteToolCallSignatures(db: Database, helpers: Pick<SqliteHelpers, 'write' | 'guarded'>): ToolCallSignatureStore {
  let statements: ReturnType<typeof prepare> | undefined;
  const sql = () => (statements ??= prepare(db));
  return {
    putToolCallSignatures: helpers.write((accountId: string, signatures: readonly ToolCallSignature[], expiresAtMs: number, nowMs: number) => {
      sql().sweep.run(nowMs);
      for (const { callId, signature } of signatures) sql().put.run({ account_id: accountId, call_id: callId, signature, expires_at_ms: expiresAtMs });
    }),
    getToolCallSignatures: helpers.guarded((accountId: string, callIds: readonly string[], nowMs: number) => {
      if (callIds.length === 0) return [];
      // One statement per list length would fill the statement cache; the ids are few (bounded by the caller).
      const rows = db
        .prepare<unknown[], { call_id: string; signature: string }>(
          `SELECT call_id, signature FROM tool_call_signatures WHERE account_id = ? AND expires_at_ms > ? AND call_id IN (${callIds.map(() => '?').join(', ')})`,
        )
        .all(accountId, nowMs, ...callIds);
      return rows.map((row) => ({ callId: row.call_id, signature: row.signature }));
    }),
  };
}
