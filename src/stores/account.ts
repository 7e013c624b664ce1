/**
 * An account as every store returns it. A file of its own, below store.ts and the sub-interfaces it
 * extends (account-auth-store.ts, billing-store.ts), so that they can name it without importing store.ts
 * back: type imports count as cycles too (.dependency-cruiser.cjs). Importers keep using store.ts.
 */
export type AccountStatus = 'active' | 'inactive';

export interface Account {
  id: string;
  email: string;
  plan: string;
  status: AccountStatus;
  createdAt: string;
}
