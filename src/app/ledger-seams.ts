/**
 * SEAM for the usage ledger (built on its own branch): the one place where ledger-backed views plug into
 * the app. Each returns null while no ledger is wired in, and the pages then say the view arrives with
 * the ledger. The ledger supplies an implementation of LedgerViews to createWebHandler.
 */

export interface LedgerViews {
  /** When each of the account's keys was last used (ISO instant, or null for never); null: not known. */
  lastUsed(accountId: string): Promise<ReadonlyMap<string, string | null> | null>;
  /** The usage page's charts, table and CSV link (HTML this app rendered); null: not available. */
  usageSection(accountId: string, query: Record<string, string>): Promise<string | null>;
  /** The support page's "download a redacted bundle for a request id" form; null: not available. */
  supportBundleSection(accountId: string, csrfToken: string): Promise<string | null>;
}

export const NO_LEDGER: LedgerViews = {
  lastUsed: async () => null,
  usageSection: async () => null,
  supportBundleSection: async () => null,
};
