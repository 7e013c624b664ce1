/**
 * An account as every store returns it. A file of its own, below store.ts and the sub-interfaces it
 * extends (account-auth-store.ts, billing-store.ts), so that they can name it without importing store.ts
 * back: type imports count as cycles too (.dependency-cruiser.cjs). Importers keep using store.ts.
 */
export type AccountStatus = 'active' | 'inactive';

export interface Account {
  id: string;
  /** The contact email (the first owner's address); also what shows when the organization has no name. */
  email: string;
  /** The organization's display name (teams); null shows `email`. */
  name: string | null;
  plan: string;
  status: AccountStatus;
  createdAt: string;
}
