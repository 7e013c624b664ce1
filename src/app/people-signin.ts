/**
 * Who an email signs in as, and which organization a new session opens on. A login the previous release
 * made (during a rolling upgrade: an account and a login, no person) is adopted here on first sign-in.
 */
import type { PersonRecord } from '../stores/people-store.js';
import type { Account, Store } from '../stores/store.js';

export async function findPersonForSignIn(store: Store, email: string): Promise<PersonRecord | null> {
  const person = await store.findPersonByEmail(email);
  if (person) return person;
  const login = await store.findLoginByEmail(email);
  return login ? store.adoptLogin(login.account.id) : null;
}

/**
 * The organization a new session selects: the oldest active one the person belongs to. `inactive` when
 * every one is deactivated, `none` when they belong to none (removed from all).
 */
export async function organizationForSignIn(store: Store, personId: string): Promise<Account | 'inactive' | 'none'> {
  const memberships = await store.listMemberships(personId);
  const active = memberships.find((membership) => membership.account.status === 'active');
  if (active) return active.account;
  return memberships.length > 0 ? 'inactive' : 'none';
}
