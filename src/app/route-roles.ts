/**
 * The one place that says who may use each signed-in page and form (docs/teams.md has the same matrix
 * for people): the least role a member needs, per method and route as registered (paths below the app's
 * prefix). page-kit.ts looks every signed-in request up here before its handler runs; a route missing
 * from the table is refused to everyone (fail closed), so a new page cannot be open by omission.
 * What a role may do to one row (a member only to their own keys) is decided by `canManageKey`.
 */
import type { Role } from '../stores/people-store.js';

const RANK: Readonly<Record<Role, number>> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export const ROUTE_ROLES: Readonly<Record<string, Role>> = {
  // Oneself: sign-out, one's own password, sessions and email, choosing an organization.
  'POST /signout': 'viewer',
  'POST /verify/resend': 'viewer',
  'GET /security': 'viewer',
  'POST /security/signout-others': 'viewer',
  'POST /security/sessions/:id/end': 'viewer',
  'POST /security/password': 'viewer',
  'POST /organizations/switch': 'viewer',
  'GET /support': 'viewer',
  // Anyone signed in may write to the operator (support-pages.ts); it mails only the operator's own address.
  'POST /support/contact': 'viewer',
  // Usage: everyone reads it (a member only the usage they caused, usage-pages.ts).
  'GET /usage': 'viewer',
  'GET /usage.csv': 'viewer',
  'GET /onboarding': 'viewer',
  // Workspaces, budgets and guardrails: everyone reads what their role may see (control-targets.ts).
  'GET /workspaces': 'viewer',
  'GET /guardrails': 'viewer',
  // Members: their own keys, the playground, a support bundle of their requests.
  'POST /onboarding/key': 'member',
  'GET /keys': 'member',
  'POST /keys': 'member',
  'POST /keys/:id/rotate': 'member',
  'GET /keys/:id/revoke': 'member',
  'POST /keys/:id/revoke': 'member',
  'POST /keys/:id/limits': 'member',
  'GET /keys/:id/usage': 'member',
  'GET /playground': 'member',
  'POST /playground': 'member',
  'POST /support/bundle': 'member',
  'GET /members': 'member',
  // Presets: members read them (and use them with their keys); admins change them.
  'GET /presets': 'member',
  // Admins: people, every key, provider keys, alerts, the organization's name.
  'POST /members/invite': 'admin',
  'POST /members/:person/role': 'admin',
  'POST /members/:person/remove': 'admin',
  'POST /invitations/:id/resend': 'admin',
  'POST /invitations/:id/revoke': 'admin',
  'GET /provider-keys': 'admin',
  'POST /provider-keys': 'admin',
  'POST /provider-keys/:provider/remove': 'admin',
  'POST /provider-keys/:provider/test': 'admin',
  'POST /security/alerts': 'admin',
  'POST /security/alerts/revoke-key': 'admin',
  'GET /organization': 'admin',
  'POST /organization/name': 'admin',
  // Admins: workspaces, budgets, guardrails, and which workspace a key is in.
  'POST /workspaces': 'admin',
  'POST /workspaces/:id/rename': 'admin',
  'POST /workspaces/:id/default': 'admin',
  'POST /budgets': 'admin',
  'POST /budgets/remove': 'admin',
  'POST /guardrails': 'admin',
  'POST /guardrails/remove': 'admin',
  'POST /keys/:id/workspace': 'admin',
  'POST /presets': 'admin',
  'POST /presets/:slug/delete': 'admin',
  // Owners: billing, ownership, deleting the organization.
  'GET /billing': 'owner',
  'GET /billing/portal': 'owner',
  'GET /billing/checkout': 'owner',
  'GET /checkout': 'owner',
  'POST /organization/transfer': 'owner',
  'POST /organization/delete': 'owner',
};

/** The least role for `method` on the route pattern `route` (below the app prefix); null: not in the table. */
export function requiredRole(method: string, route: string): Role | null {
  return ROUTE_ROLES[`${method.toUpperCase()} ${route}`] ?? null;
}

export function roleAllows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/** Whether a GET of `route` is open to `role` (the navigation shows only those). */
export function mayVisit(role: Role, route: string): boolean {
  const needed = requiredRole('GET', route);
  return needed !== null && roleAllows(role, needed);
}

/** Admins and owners act on every key of the organization; a member only on keys they created. */
export function canManageKey(viewer: { role: Role; personId: string }, key: { personId: string | null }): boolean {
  return roleAllows(viewer.role, 'admin') || key.personId === viewer.personId;
}

/**
 * Management keys are made by admins and owners only: such a key lists, changes, rotates and deletes
 * every key of the organization (the key API), so a member making one would gain an admin's power over keys.
 */
export function mayMakeManagementKeys(role: Role): boolean {
  return roleAllows(role, 'admin');
}
