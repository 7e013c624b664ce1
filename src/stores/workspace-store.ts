/**
 * Workspaces inside an organization (OpenRouter's name): every key belongs to one (a key whose
 * `workspaceId` is null belongs to the organization's default workspace), and budgets and guardrails may
 * be set per workspace. Every organization has exactly one default workspace, made with it.
 */

export interface WorkspaceRecord {
  id: string;
  accountId: string;
  name: string;
  /** Unique within the organization, made from the name: lowercase letters, digits and hyphens. */
  slug: string;
  isDefault: boolean;
  createdAt: string;
}

/** Thrown for a workspace name whose slug another workspace of the organization already has. */
export class WorkspaceConflictError extends Error {
  constructor(readonly slug: string) {
    super(`a workspace named ${slug} already exists`);
    this.name = 'WorkspaceConflictError';
  }
}

export interface WorkspaceStore {
  /** The organization's workspaces, the default first, then by name. */
  listWorkspaces(accountId: string): Promise<WorkspaceRecord[]>;
  getWorkspace(accountId: string, id: string): Promise<WorkspaceRecord | null>;
  /** The organization's default workspace (every organization has one). */
  getDefaultWorkspace(accountId: string): Promise<WorkspaceRecord>;
  createWorkspace(input: { accountId: string; name: string }, actor: string): Promise<WorkspaceRecord>;
  renameWorkspace(accountId: string, id: string, name: string, actor: string): Promise<WorkspaceRecord>;
  /** Makes `id` the default: keys with no workspace of their own follow the default. */
  setDefaultWorkspace(accountId: string, id: string, actor: string): Promise<WorkspaceRecord>;
  /** Moves a key of the organization to one of its workspaces. */
  moveApiKeyToWorkspace(accountId: string, keyId: string, workspaceId: string, actor: string): Promise<void>;
}

/** A workspace's slug: what a name reads as in a URL or on the command line. */
export function workspaceSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return slug.length > 0 ? slug : 'workspace';
}

export const WORKSPACE_NAME_MAX = 64;
