/**
 * Signed reasoning kept for a tool call the router handed a client (Gemini's thought signatures), by
 * the account and the call's id, so a client that sends back only `id`, `type` and `function` of its
 * tool calls still gets the real signature to the upstream on its next turn, on any instance. Each row
 * lives a bounded time (`expiresAt`); expired rows are never read and are deleted as new ones are written.
 */

export interface ToolCallSignature {
  callId: string;
  signature: string;
}

export interface ToolCallSignatureStore {
  /** Keeps each signature for the account until `expiresAtMs`; a call id written again keeps the newer one. Also deletes expired rows. */
  putToolCallSignatures(accountId: string, signatures: readonly ToolCallSignature[], expiresAtMs: number, nowMs: number): Promise<void>;
  /** The account's unexpired signatures among these call ids; another account's rows are never read. */
  getToolCallSignatures(accountId: string, callIds: readonly string[], nowMs: number): Promise<ToolCallSignature[]>;
}
