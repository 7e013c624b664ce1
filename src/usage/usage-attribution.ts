/**
 * Usage by member and by workspace (docs/teams.md). The ledger's rollups are kept per key, and every key
 * is held by one person (who made it, or the admin it was handed to at a removal) and belongs to one
 * workspace. The ledger records with each request the person and workspace its key had then (version
 * 18), so a key moved to another workspace, or handed over at a member's removal, leaves its past usage
 * with whoever caused it; usage recorded before that follows the key's current holder (documented in
 * docs/teams.md). Pure, but for `loadTeamDirectory`, which reads who holds what from the store.
 */
import { addSums, emptySums } from '../stores/ledger-rollup.js';
import type { AttributedCell, KeyFilter, LedgerRecord, RecordedScope, UsageCell, UsageSums } from '../stores/ledger-store.js';
import type { Store } from '../stores/store.js';

/** The two splits that regroup the split by key. */
export type TeamDimension = 'member' | 'workspace';
export const TEAM_DIMENSIONS: readonly TeamDimension[] = ['member', 'workspace'];

export function isTeamDimension(value: string): value is TeamDimension {
  return (TEAM_DIMENSIONS as readonly string[]).includes(value);
}

/** Who holds a key now and where it lives (a key with no workspace of its own: the default's id). */
export interface KeyHolder {
  keyId: string;
  /** Null for a key the operator made (CLI) or one from before teams. */
  personId: string | null;
  workspaceId: string;
}

/** Whose usage a view covers: one member's keys, one workspace's, or both at once. Empty: everyone's. */
export interface UsageScope {
  personId?: string;
  workspaceId?: string;
}

/** Every key of an organization with its holder and workspace, and the names to show for them. */
export interface TeamDirectory {
  keys: readonly KeyHolder[];
  /** Emails by person id: the members, and former members whose (revoked) keys still carry their usage. */
  people: ReadonlyMap<string, string>;
  /** Workspace names by id. */
  workspaces: ReadonlyMap<string, string>;
  /** Those of `people` who are no longer members (absent: none). */
  former?: ReadonlySet<string>;
}

/** The keys of the scope, as the ledger's filter; undefined when the scope is everyone (no filter at all). */
export function keysInScope(directory: TeamDirectory, scope: UsageScope | undefined): KeyFilter | undefined {
  if (!scope || (scope.personId === undefined && scope.workspaceId === undefined)) return undefined;
  return directory.keys
    .filter((key) => (scope.personId === undefined || key.personId === scope.personId) && (scope.workspaceId === undefined || key.workspaceId === scope.workspaceId))
    .map((key) => key.keyId);
}

/**
 * A scope as the ledger's filter of raw requests by whom each was recorded for; a request recorded
 * without a person or workspace counts for its key's holder or workspace now (as `recordedHolding`).
 * Undefined when the scope is everyone.
 */
export function recordedScopeOf(directory: TeamDirectory, scope: UsageScope | undefined): RecordedScope | undefined {
  if (!scope || (scope.personId === undefined && scope.workspaceId === undefined)) return undefined;
  const keysOf = (matches: (key: KeyHolder) => boolean) => directory.keys.filter(matches).map((key) => key.keyId);
  return {
    ...(scope.personId === undefined ? {} : { person: { id: scope.personId, keyIdsNow: keysOf((key) => key.personId === scope.personId) } }),
    ...(scope.workspaceId === undefined ? {} : { workspace: { id: scope.workspaceId, keyIdsNow: keysOf((key) => key.workspaceId === scope.workspaceId) } }),
  };
}

/** Whether a raw record is of the scope, reckoned as `recordedScopeOf` (a member's support bundle). */
export function recordInScope(record: LedgerRecord, directory: TeamDirectory, scope: UsageScope | undefined): boolean {
  const now = currentHoldingOf(directory)(record.keyId);
  return holdingInScope(recordedHolding({ personId: record.personId ?? null, workspaceId: record.workspaceId ?? null }, now), scope);
}

/** Whose a part of a key's usage is: a person (null: none) and a workspace. */
interface Holding {
  personId: string | null;
  workspaceId: string | null;
}

/** Who holds a key now and where it lives; null both for usage with no key, or a key the directory lacks. */
function currentHoldingOf(directory: TeamDirectory): (keyId: string | null) => Holding {
  const holders = new Map(directory.keys.map((key) => [key.keyId, key]));
  return (keyId) => {
    const holder = keyId === null ? undefined : holders.get(keyId);
    return { personId: holder?.personId ?? null, workspaceId: holder?.workspaceId ?? null };
  };
}

/**
 * Whose attributed usage is: the person and workspace recorded with it; none recorded (a key the operator
 * made has no person, and keys never gain one, so its current holder is the same none) falls back to the key's now.
 */
function recordedHolding(cell: Pick<AttributedCell, 'personId' | 'workspaceId'>, now: Holding): Holding {
  return { personId: cell.personId ?? now.personId, workspaceId: cell.workspaceId ?? now.workspaceId };
}

/** Whether usage of `holding` is in the scope (an empty scope: everyone's). */
function holdingInScope(holding: Holding, scope: UsageScope | undefined): boolean {
  return (scope?.personId === undefined || holding.personId === scope.personId) && (scope?.workspaceId === undefined || holding.workspaceId === scope.workspaceId);
}

/** Largest cost first, then by value (none first), the order the ledger's own splits come in. */
function byCostThenValue(a: UsageSums, b: UsageSums): number {
  return b.costNanoUsd - a.costNanoUsd || ((a.group ?? '') < (b.group ?? '') ? -1 : (a.group ?? '') > (b.group ?? '') ? 1 : 0);
}

/** `total` less `part`, field by field; the latest instant stays the total's while anything is left. */
function remainderOf(total: UsageCell, part: UsageSums): UsageCell {
  const rest: UsageCell = { ...total };
  for (const name of Object.keys(part) as (keyof UsageSums)[]) {
    if (name === 'group' || name === 'lastAt') continue;
    (rest[name] as number) -= part[name] as number;
  }
  return rest;
}

/** What attributed cells can be regrouped by: a team dimension, the key, or nothing but the range (`day`). */
export type RegroupDimension = TeamDimension | 'key' | 'day';

/**
 * Per-range cells split by key (usage_rollups) regrouped by member, workspace, key or range alone, in
 * range order, then largest cost first. Usage recorded with its attribution (`attributed`, version 18)
 * counts for the person and workspace the key had when it was used; the rest of a key's usage (written
 * before version 18, or by an older release during a rolling upgrade) for the key's current holder and
 * workspace. With a scope, only the usage of that person and/or workspace so reckoned counts: a key
 * handed from A to B keeps A's earlier usage in A's and out of B's. Without one, every key's usage lands
 * in exactly one row, so the rows still add up to the total.
 */
export function regroupCellsByTeam(
  byKey: readonly UsageCell[],
  attributed: readonly AttributedCell[],
  directory: TeamDirectory,
  by: RegroupDimension,
  scope?: UsageScope,
): UsageCell[] {
  const current = currentHoldingOf(directory);
  const valueOf = (range: string, keyId: string | null, holding: Holding) =>
    by === 'member' ? holding.personId : by === 'workspace' ? holding.workspaceId : by === 'key' ? keyId : range;
  const cellKey = (range: string, keyId: string | null) => `${range}\u0000${keyId ?? ''}`;
  const attributedOf = new Map<string, AttributedCell[]>();
  for (const cell of attributed) {
    const id = cellKey(cell.range, cell.keyId);
    attributedOf.set(id, [...(attributedOf.get(id) ?? []), cell]);
  }
  const ranges: string[] = [];
  const cells = new Map<string, Map<string | null, UsageCell>>();
  const add = (range: string, value: string | null, sums: UsageSums) => {
    let inRange = cells.get(range);
    if (!inRange) {
      cells.set(range, (inRange = new Map()));
      ranges.push(range);
    }
    let row = inRange.get(value);
    if (!row) inRange.set(value, (row = { range, ...emptySums(value) }));
    addSums<UsageSums>(row, sums);
  };
  for (const total of byKey) {
    const now = current(total.group);
    const parts = attributedOf.get(cellKey(total.range, total.group)) ?? [];
    const recorded = emptySums();
    for (const part of parts) {
      const holding = recordedHolding(part, now);
      if (holdingInScope(holding, scope)) add(total.range, valueOf(total.range, total.group, holding), part);
      addSums(recorded, part);
    }
    const rest = remainderOf(total, recorded);
    if (rest.calls > 0 && holdingInScope(now, scope)) add(total.range, valueOf(total.range, total.group, now), rest);
  }
  return ranges.flatMap((range) => [...cells.get(range)!.values()].sort(byCostThenValue));
}

/** Sums over one interval regrouped by member or workspace (regroupCellsByTeam with one range), largest cost first. */
export function regroupByTeam(byKey: readonly UsageCell[], attributed: readonly AttributedCell[], directory: TeamDirectory, by: RegroupDimension, scope?: UsageScope): UsageSums[] {
  return regroupCellsByTeam(byKey, attributed, directory, by, scope).map(({ range: _range, ...sums }) => sums);
}

/** What the member and workspace columns say of a row: whose usage it is (empty: everyone's). */
export interface RowTeam {
  member: string;
  workspace: string;
}

/**
 * The member and workspace of each row of a report (null: its total): by key, the key's holder and
 * workspace; by member or workspace, the row's own value; otherwise, and for the total, the scope's.
 */
export function rowTeams(directory: TeamDirectory, by: string, scope: UsageScope | undefined): (group: string | null | undefined) => RowTeam {
  const member = (id: string | null | undefined) => (id ? (directory.people.get(id) ?? id) : '');
  const workspace = (id: string | null | undefined) => (id ? (directory.workspaces.get(id) ?? id) : '');
  const scoped: RowTeam = { member: member(scope?.personId), workspace: workspace(scope?.workspaceId) };
  const holders = new Map(directory.keys.map((key) => [key.keyId, key]));
  return (group) => {
    if (group === undefined) return scoped;
    if (by === 'member') return { ...scoped, member: member(group) };
    if (by === 'workspace') return { ...scoped, workspace: workspace(group) };
    const holder = by === 'key' && group !== null ? holders.get(group) : undefined;
    return holder ? { member: member(holder.personId), workspace: workspace(holder.workspaceId) } : scoped;
  };
}

/** The store reads a directory needs. */
export type TeamDirectoryStore = Pick<Store, 'listApiKeys' | 'listMembers' | 'listWorkspaces' | 'getPerson'>;

/** Who holds each key of the organization and where it lives, with the names of both (bounded by its keys). */
export async function loadTeamDirectory(store: TeamDirectoryStore, accountId: string): Promise<TeamDirectory> {
  const [keys, members, workspaces] = await Promise.all([store.listApiKeys(accountId), store.listMembers(accountId), store.listWorkspaces(accountId)]);
  const fallback = workspaces.find((workspace) => workspace.isDefault)?.id ?? workspaces[0]?.id ?? '';
  const people = new Map(members.map((member) => [member.personId, member.email]));
  // Former members: their keys stay (revoked) with the usage they caused, under their address.
  const former = [...new Set(keys.map((key) => key.personId).filter((id): id is string => id !== null && !people.has(id)))];
  for (const person of await Promise.all(former.map((id) => store.getPerson(id)))) if (person) people.set(person.id, person.email);
  return {
    keys: keys.map((key) => ({ keyId: key.id, personId: key.personId, workspaceId: key.workspaceId ?? fallback })),
    people,
    workspaces: new Map(workspaces.map((workspace) => [workspace.id, workspace.name])),
    former: new Set(former.filter((id) => people.has(id))),
  };
}

/**
 * The directory with the names of the people a split by member shows who are no longer in it: usage is
 * recorded with the person who caused it, who may since have left with every key handed over. Reads only
 * the people the rows name that the directory lacks (none, most of the time).
 */
export async function withRecordedPeople(store: Pick<Store, 'getPerson'>, directory: TeamDirectory, by: string, groups: readonly (string | null)[]): Promise<TeamDirectory> {
  return by === 'member' ? withFormerPeople(store, directory, groups) : directory;
}

/**
 * The directory with those of `ids` it lacks, as former members (the directory has every member): the
 * people who caused usage, offered by the member filter though they left with their keys handed over.
 */
export async function withFormerPeople(store: Pick<Store, 'getPerson'>, directory: TeamDirectory, ids: readonly (string | null)[]): Promise<TeamDirectory> {
  const missing = [...new Set(ids.filter((id): id is string => id !== null && !directory.people.has(id)))];
  if (missing.length === 0) return directory;
  const people = new Map(directory.people);
  const former = new Set(directory.former);
  for (const person of await Promise.all(missing.map((id) => store.getPerson(id)))) {
    if (!person) continue;
    people.set(person.id, person.email);
    former.add(person.id);
  }
  return { ...directory, people, former };
}
