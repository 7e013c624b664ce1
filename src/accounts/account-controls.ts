/**
 * An organization's workspaces, budgets and guardrails as the pipeline reads them: one snapshot per
 * organization through a short-lived cache (the same bound as verified keys), evicted at once when the app
 * or the CLI changes them on this instance. From it, what applies to one request: its workspace (a key
 * without one is in the default), the guardrails of that workspace, the key's member and the key, and
 * their budgets.
 */
import type { MaybePromise } from '../core/maybe-promise.js';
import type { LRUCache } from 'lru-cache';
import { createBoundedCache } from '../core/bounded-cache.js';
import type { Clock } from '../core/clock.js';
import type { AppliedBudget, BudgetRecord, BudgetScope } from '../stores/budget-store.js';
import type { GuardrailRecord } from '../stores/guardrail-store.js';
import type { Store } from '../stores/store.js';
import type { WorkspaceRecord } from '../stores/workspace-store.js';
import type { AppliedGuardrail } from './guardrail-rules.js';

export interface ControlsSnapshot {
  workspaces: readonly WorkspaceRecord[];
  budgets: readonly BudgetRecord[];
  guardrails: readonly GuardrailRecord[];
  /** Who the members are, so a refusal names a member by email, as the app shows them; absent: by id. */
  members?: readonly { personId: string; email: string }[];
}

/** Who a request is, as budgets and guardrails see it. */
export interface RequestSubject {
  accountId: string;
  keyId: string;
  /** The key's own workspace; null: the organization's default. */
  workspaceId: string | null;
  /** The person who made the key; null: none (the CLI's keys). */
  personId: string | null;
  /** When the key was made (ISO); absent: unknown, and a cached snapshot is trusted as it is. */
  keyCreatedAt?: string;
}

/** What applies to one request. */
export interface RequestControls {
  /** The workspace the request counts in (the default's id for a key without one). */
  workspaceId: string | null;
  guardrails: readonly AppliedGuardrail[];
  budgets: readonly AppliedBudget[];
}

const SCOPE_ORDER: readonly BudgetScope[] = ['workspace', 'member', 'key'];

/**
 * How far apart two instances' clocks may be: a key stamped up to this long before a snapshot was read
 * may still be younger than it. Keys older than that were in the store when the snapshot was read.
 */
const CLOCK_SKEW_MS = 2000;

interface CachedSnapshot {
  snapshot: ControlsSnapshot;
  loadedAtMs: number;
  /** Keys made about when the snapshot was read or later, whose requests have read it fresh since: no more rereads for them. */
  youngKeysSeen: Set<string>;
}

export class AccountControls {
  readonly #cache: LRUCache<string, CachedSnapshot>;
  /** One store read per account at a time: a burst of a new key's first requests shares it. */
  readonly #loading = new Map<string, Promise<CachedSnapshot>>();
  /** Counts `forget` calls: a read begun before one must not be cached after it. */
  #forgets = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    cacheTtlMs: number,
  ) {
    this.#cache = createBoundedCache({ entries: 50_000, ttlMs: cacheTtlMs, now: () => clock.now() });
  }

  async snapshot(accountId: string): Promise<ControlsSnapshot> {
    return (this.#cache.get(accountId) ?? (await this.#load(accountId))).snapshot;
  }

  #load(accountId: string): Promise<CachedSnapshot> {
    const pending = this.#loading.get(accountId);
    if (pending) return pending;
    const loadedAtMs = this.clock.now();
    const forgets = this.#forgets;
    const loading = Promise.all([
      this.store.listWorkspaces(accountId),
      this.store.listBudgets(accountId),
      this.store.listGuardrails(accountId),
      this.store.listMembers(accountId),
    ])
      .then(([workspaces, budgets, guardrails, people]) => {
        const members = people.map((member) => ({ personId: member.personId, email: member.email }));
        const entry: CachedSnapshot = { snapshot: { workspaces, budgets, guardrails, members }, loadedAtMs, youngKeysSeen: new Set() };
        if (forgets === this.#forgets) this.#cache.set(accountId, entry);
        return entry;
      })
      .finally(() => {
        if (this.#loading.get(accountId) === loading) this.#loading.delete(accountId);
      });
    this.#loading.set(accountId, loading);
    return loading;
  }

  /**
   * A fresh snapshot for a request no cached one serves: none is cached, or its key is younger than the
   * cached one. A key made after this instance read the organization's settings (on another instance,
   * through the key API, with a limit set before its secret was handed out) is not in that snapshot: it
   * would run without its limit until the cache expires. So a key younger than the snapshot makes one
   * fresh read, which sees everything set before the key could be used.
   */
  async #snapshotFor(subject: RequestSubject): Promise<ControlsSnapshot> {
    const askedAtMs = this.clock.now();
    let entry = await this.#load(subject.accountId);
    // A read already under way when this request came may have been made before its key existed.
    if (keyIsYoungerThan(entry, subject) && entry.loadedAtMs < askedAtMs) entry = await this.#load(subject.accountId);
    if (keyIsYoungerThan(entry, subject)) entry.youngKeysSeen.add(subject.keyId);
    return entry.snapshot;
  }

  /** After a change on this instance: the next request reads the store (other instances within the TTL). */
  forget(accountId: string): void {
    this.#forgets++;
    this.#cache.delete(accountId);
    this.#loading.delete(accountId);
  }

  /** What applies to one request: at once from a cached snapshot its key may use, else after a store read. */
  forRequest(subject: RequestSubject): MaybePromise<RequestControls> {
    const cached = this.#cache.get(subject.accountId);
    if (cached && !keyIsYoungerThan(cached, subject)) return controlsFor(cached.snapshot, subject);
    return this.#snapshotFor(subject).then((snapshot) => controlsFor(snapshot, subject));
  }
}

/** The key was made about when the snapshot was read or later, and none of its requests has read it fresh since. */
function keyIsYoungerThan(entry: CachedSnapshot, subject: RequestSubject): boolean {
  if (subject.keyCreatedAt === undefined) return false;
  return Date.parse(subject.keyCreatedAt) >= entry.loadedAtMs - CLOCK_SKEW_MS && !entry.youngKeysSeen.has(subject.keyId);
}

/** The guardrails and budgets of a request's workspace, member and key, broadest first. */
export function controlsFor(snapshot: ControlsSnapshot, subject: RequestSubject): RequestControls {
  const workspace = subject.workspaceId === null ? snapshot.workspaces.find((candidate) => candidate.isDefault) : snapshot.workspaces.find((candidate) => candidate.id === subject.workspaceId);
  const workspaceId = workspace?.id ?? subject.workspaceId;
  const idOf: Record<BudgetScope, string | null> = { workspace: workspaceId, member: subject.personId, key: subject.keyId };
  // A refusal names the workspace and the member as the Workspaces and Guardrails pages show them.
  const member = snapshot.members?.find((candidate) => candidate.personId === subject.personId);
  const label = (scope: BudgetScope, id: string): string => {
    if (scope === 'workspace' && workspace) return `workspace "${workspace.name}"`;
    if (scope === 'member' && member) return `member ${member.email}`;
    return `${scope} ${id}`;
  };
  const guardrails: AppliedGuardrail[] = [];
  const budgets: AppliedBudget[] = [];
  for (const scope of SCOPE_ORDER) {
    const id = idOf[scope];
    if (id === null) continue;
    const guardrail = snapshot.guardrails.find((candidate) => candidate.scope === scope && candidate.scopeId === id);
    if (guardrail) guardrails.push({ scope, scopeId: id, label: label(scope, id), rules: guardrail });
    const budget = snapshot.budgets.find((candidate) => candidate.scope === scope && candidate.scopeId === id);
    if (budget) budgets.push({ record: budget, label: label(scope, id) });
  }
  return { workspaceId, guardrails, budgets };
}
