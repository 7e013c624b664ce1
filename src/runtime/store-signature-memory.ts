/**
 * Routing's SignatureMemory (routing/tool-call-signatures.ts) on the shared store: every instance reads
 * what any instance kept, for 24 hours per signature (a tool loop's turns are minutes apart; a
 * conversation resumed later falls back to Google's documented dummy, as history the router never saw
 * does). It never fails a request: a store that cannot be read or written costs the signature, not the answer.
 */
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/describe-error.js';
import type { SignatureMemory } from '../routing/tool-call-signatures.js';
import type { ToolCallSignatureStore } from '../stores/tool-call-signature-store.js';
import type { ConsolaInstance } from 'consola';

export const SIGNATURE_TTL_MS = 24 * 60 * 60_000;
/** Gemini's signatures measured a few hundred bytes to a few KB; a larger value is not kept (bounded rows). */
const MAX_SIGNATURE_CHARS = 64 * 1024;
/** Signatures kept per answer: a parallel step's calls, bounded. */
const MAX_PER_ANSWER = 64;

export function storeSignatureMemory(store: ToolCallSignatureStore, clock: Clock, logger: Pick<ConsolaInstance, 'warn'>): SignatureMemory {
  return {
    async remember(accountId, signatures) {
      const kept = signatures.filter((entry) => entry.signature.length <= MAX_SIGNATURE_CHARS).slice(0, MAX_PER_ANSWER);
      if (kept.length === 0) return;
      const now = clock.now();
      await store.putToolCallSignatures(accountId, kept, now + SIGNATURE_TTL_MS, now).catch((error: unknown) => {
        logger.warn(`could not keep tool-call signatures (${describeError(error)}); the next turn sends the documented placeholder`);
      });
    },
    async recall(accountId, callIds) {
      try {
        const rows = await store.getToolCallSignatures(accountId, callIds, clock.now());
        return new Map(rows.map((row) => [row.callId, row.signature]));
      } catch (error) {
        logger.warn(`could not read tool-call signatures (${describeError(error)}); the next turn sends the documented placeholder`);
        return new Map();
      }
    },
  };
}
