/**
 * What the Workspaces and Guardrails pages set budgets and guardrails on: the organization's workspaces,
 * its members and its keys, as one list of targets (`workspace:ws_…`, `member:psn_…`, `key:key_…`) that a
 * form's select offers and a post names. Each person sees only the targets their role may see (the same
 * rules as the Members and API keys pages): every workspace; every member unless a viewer (who sees only
 * themself); the keys they may manage. Pure; the pages read the store and pass the lists in.
 */
import { isPlaygroundKey } from '../accounts/key-service.js';
import type { BudgetScope } from '../stores/budget-store.js';
import type { MemberView, Role } from '../stores/people-store.js';
import type { ApiKeyRecord } from '../stores/store.js';
import type { WorkspaceRecord } from '../stores/workspace-store.js';
import { maskedKey } from './key-views.js';
import { canManageKey, roleAllows } from './route-roles.js';

export interface ControlTarget {
  scope: BudgetScope;
  id: string;
  /** `workspace:ws_…`: the value a form posts. */
  value: string;
  /** How the page names it: `Research`, `ada@example.com`, `ci (sk_router_…1a2b)`. */
  label: string;
  /** The anchor of its row on the page (`guardrail-workspace-ws_…`), without the prefix. */
  anchor: string;
}

export interface TargetGroups {
  workspaces: ControlTarget[];
  members: ControlTarget[];
  keys: ControlTarget[];
}

export const SCOPE_WORDS: Readonly<Record<BudgetScope, string>> = { workspace: 'Workspace', member: 'Member', key: 'Key' };

const target = (scope: BudgetScope, id: string, label: string): ControlTarget => ({ scope, id, value: `${scope}:${id}`, label, anchor: `${scope}-${id}` });

/** A key as the pages name it: its name (or "unnamed") and its masked form. */
export function keyLabel(key: Pick<ApiKeyRecord, 'name' | 'prefix' | 'last4'>): string {
  return `${key.name ?? '(unnamed)'} (${maskedKey(key)})`;
}

export function workspaceLabel(workspace: Pick<WorkspaceRecord, 'name' | 'isDefault'>): string {
  return workspace.isDefault ? `${workspace.name} (default)` : workspace.name;
}

/** The targets `viewer` may see: live keys only (a revoked key's budget or guardrail can never apply again). */
export function visibleTargets(
  viewer: { role: Role; personId: string },
  lists: { workspaces: readonly WorkspaceRecord[]; members: readonly MemberView[]; keys: readonly ApiKeyRecord[]; nowMs: number },
): TargetGroups {
  const seesEveryone = roleAllows(viewer.role, 'member');
  const live = (key: ApiKeyRecord) => key.revokedAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > lists.nowMs);
  return {
    workspaces: lists.workspaces.map((workspace) => target('workspace', workspace.id, workspaceLabel(workspace))),
    members: lists.members.filter((member) => seesEveryone || member.personId === viewer.personId).map((member) => target('member', member.personId, member.email)),
    keys: lists.keys.filter((key) => live(key) && !isPlaygroundKey(key) && canManageKey(viewer, key)).map((key) => target('key', key.id, keyLabel(key))),
  };
}

export function allTargets(groups: TargetGroups): ControlTarget[] {
  return [...groups.workspaces, ...groups.members, ...groups.keys];
}

/** The target a form posted, if it is one of `groups` (anything else: another organization's, made up, hidden from this role). */
export function findTarget(groups: TargetGroups, value: string | undefined): ControlTarget | undefined {
  return allTargets(groups).find((candidate) => candidate.value === value);
}

/** Select options grouped by scope, for the forms (templates render `<optgroup>` per group with entries). */
export function targetOptionGroups(groups: TargetGroups): Array<{ label: string; options: ControlTarget[] }> {
  return [
    { label: 'Workspaces', options: groups.workspaces },
    { label: 'Members', options: groups.members },
    { label: 'Keys', options: groups.keys },
  ].filter((group) => group.options.length > 0);
}
