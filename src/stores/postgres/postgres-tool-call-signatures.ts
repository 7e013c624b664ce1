/** The PostgreSQL side of ToolCallSignatureStore, on the store's pool. */
import type { Pool } from 'pg';
import type { ToolCallSignature, ToolCallSignatureStore } from '../tool-call-signature-store.js';
import { queryRows } from './postgres-session.js';

export function createPostgresToolCallSignatures(pool: Pool): ToolCallSignatureStore {
  return {
    putToolCallSignatures: async (accountId, signatures, expiresAtMs, nowMs) => {
      await queryRows(pool, 'DELETE FROM tool_call_signatures WHERE expires_at_ms <= $1', [nowMs]);
      if (signatures.length === 0) return;
      // One statement for the whole answer: unnest pairs the two arrays row by row.
      await queryRows(
        pool,
        `INSERT INTO tool_call_signatures (account_id, call_id, signature, expires_at_ms)
         SELECT $1, call_id, signature, $4 FROM unnest($2::text[], $3::text[]) AS given (call_id, signature)
         ON CONFLICT (account_id, call_id) DO UPDATE SET signature = EXCLUDED.signature, expires_at_ms = EXCLUDED.expires_at_ms`,
        [accountId, signatures.map((entry) => entry.callId), signatures.map((entry) => entry.signature), expiresAtMs],
      );
    },
    getToolCallSignatures: async (accountId, callIds, nowMs): Promise<ToolCallSignature[]> => {
      if (callIds.length === 0) return [];
      const rows = await queryRows<{ call_id: string; signature: string }>(
        pool,
        'SELECT call_id, signature FROM tool_call_signatures WHERE account_id = $1 AND expires_at_ms > $2 AND call_id = ANY($3::text[])',
        [accountId, nowMs, [...callIds]],
      );
      return rows.map((row) => ({ callId: row.call_id, signature: row.signature }));
    },
  };
}
