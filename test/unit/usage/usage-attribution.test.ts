/**
 * Usage the ledger holds without its attribution (rollups from before version 18, or written by the
 * previous release during a rolling upgrade) counts for the key's current holder; what was attributed
 * counts where it was caused; the rows always add up to the key's whole usage.
 */
import { describe, expect, it } from 'vitest';
import { emptySums } from '../../../src/stores/ledger-rollup.js';
import type { AttributedCell, LedgerRecord, UsageCell } from '../../../src/stores/ledger-store.js';
import { recordInScope, recordedScopeOf, regroupByTeam, regroupCellsByTeam, type TeamDirectory } from '../../../src/usage/usage-attribution.js';

const directory: TeamDirectory = {
  keys: [{ keyId: 'key_1', personId: 'psn_admin', workspaceId: 'wks_new' }],
  people: new Map([['psn_admin', 'admin@example.com'], ['psn_gone', 'gone@example.com']]),
  workspaces: new Map([['wks_old', 'Old'], ['wks_new', 'New']]),
};

const cell = (range: string, requests: number, cost: number, lastAt: string): UsageCell => ({ range, ...emptySums('key_1'), requests, calls: requests, costNanoUsd: cost, lastAt });
const attributed = (range: string, requests: number, cost: number, personId: string | null, workspaceId: string | null): AttributedCell => ({
  ...cell(range, requests, cost, '2026-11-20T10:00:00.000Z'),
  keyId: 'key_1',
  personId,
  workspaceId,
});

describe('regroupCellsByTeam', () => {
  it('gives the attributed part to the person and workspace recorded, the rest of the key to its holder now', () => {
    const byKey = [cell('d1', 5, 500, '2026-11-20T11:00:00.000Z'), cell('d2', 2, 20, '2026-11-21T11:00:00.000Z')];
    const parts = [attributed('d1', 3, 300, 'psn_gone', 'wks_old'), attributed('d2', 2, 20, 'psn_gone', null)];
    const byMember = regroupCellsByTeam(byKey, parts, directory, 'member');
    expect(byMember.map((row) => [row.range, row.group, row.requests, row.costNanoUsd])).toEqual([
      ['d1', 'psn_gone', 3, 300],
      ['d1', 'psn_admin', 2, 200],
      ['d2', 'psn_gone', 2, 20],
    ]);
    // A workspace not recorded (null) is the key's own now.
    const byWorkspace = regroupByTeam([cell('all', 7, 520, '2026-11-21T11:00:00.000Z')], [attributed('all', 3, 300, 'psn_gone', 'wks_old'), attributed('all', 2, 20, 'psn_gone', null)], directory, 'workspace');
    expect(byWorkspace.map((row) => [row.group, row.requests, row.costNanoUsd])).toEqual([
      ['wks_old', 3, 300],
      ['wks_new', 4, 220],
    ]);
    expect(byWorkspace.reduce((sum, row) => sum + row.requests, 0)).toBe(7);
  });

  it('narrowed to a person or workspace, counts only what they caused there: a handed-over key\u2019s earlier usage stays out of its holder\u2019s', () => {
    const byKey = [cell('d1', 5, 500, '2026-11-20T11:00:00.000Z'), cell('d2', 2, 20, '2026-11-21T11:00:00.000Z')];
    const parts = [attributed('d1', 3, 300, 'psn_gone', 'wks_old'), attributed('d2', 2, 20, 'psn_gone', null)];
    const rows = (by: 'day' | 'key', scope: { personId?: string; workspaceId?: string }) =>
      regroupCellsByTeam(byKey, parts, directory, by, scope).map((row) => [row.range, row.group, row.requests]);
    expect(rows('day', { personId: 'psn_admin' })).toEqual([['d1', 'd1', 2]]);
    expect(rows('day', { personId: 'psn_gone' })).toEqual([['d1', 'd1', 3], ['d2', 'd2', 2]]);
    expect(rows('key', { workspaceId: 'wks_new' })).toEqual([['d1', 'key_1', 2], ['d2', 'key_1', 2]]);
    expect(rows('key', { personId: 'psn_gone', workspaceId: 'wks_old' })).toEqual([['d1', 'key_1', 3]]);
  });

  it('without attributed usage regroups by the keys\u2019 current holders, as before version 18', () => {
    const rows = regroupByTeam([cell('all', 4, 40, '2026-11-21T11:00:00.000Z')], [], directory, 'member');
    expect(rows.map((row) => [row.group, row.requests, row.lastAt])).toEqual([['psn_admin', 4, '2026-11-21T11:00:00.000Z']]);
  });
});

describe('raw requests in a scope (recent requests, a member\'s support bundle)', () => {
  const record = (personId: string | null | undefined, workspaceId: string | null | undefined) => ({ keyId: 'key_1', personId, workspaceId }) as LedgerRecord;

  it('counts a request for the person and workspace recorded with it, not the key\'s holder now', () => {
    expect(recordInScope(record('psn_gone', 'wks_old'), directory, { personId: 'psn_gone' })).toBe(true);
    expect(recordInScope(record('psn_gone', 'wks_old'), directory, { personId: 'psn_admin' })).toBe(false);
    expect(recordInScope(record('psn_gone', 'wks_old'), directory, { workspaceId: 'wks_new' })).toBe(false);
    expect(recordInScope(record('psn_gone', 'wks_old'), directory, { personId: 'psn_gone', workspaceId: 'wks_old' })).toBe(true);
  });

  it('counts a request recorded without them (before versions 12 and 13) for the key\'s holder and workspace now', () => {
    expect(recordInScope(record(undefined, null), directory, { personId: 'psn_admin', workspaceId: 'wks_new' })).toBe(true);
    expect(recordInScope(record(null, undefined), directory, { personId: 'psn_gone' })).toBe(false);
  });

  it('hands the ledger the same reckoning: the recorded ids, and the keys each has now for requests without them', () => {
    expect(recordedScopeOf(directory, {})).toBeUndefined();
    expect(recordedScopeOf(directory, { personId: 'psn_gone', workspaceId: 'wks_new' })).toEqual({ person: { id: 'psn_gone', keyIdsNow: [] }, workspace: { id: 'wks_new', keyIdsNow: ['key_1'] } });
  });
});
