/** The usage page's query: any input gives the defaults, a value it offers, or a problem to show; never a throw. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPLITS, isRequestId, readCsvQuery, readUsageQuery, timeZoneNames, usageScopeFor, zonedLabel } from '../../../src/app/usage-views.js';
import { ROLES } from '../../../src/stores/people-store.js';

describe('usage page query', () => {
  it('defaults to UTC split by route profile, and refuses splits it does not offer', () => {
    expect(readUsageQuery(new URLSearchParams())).toEqual({ tz: 'UTC', by: 'route' });
    expect(readUsageQuery(new URLSearchParams('tz=Europe/Berlin&by=key'))).toEqual({ tz: 'Europe/Berlin', by: 'key' });
    expect(readUsageQuery(new URLSearchParams('by=day'))).toMatchObject({ problem: expect.stringContaining('from the list: Route profile, Provider, API key, Provider model, Member, Workspace.') });
    fc.assert(
      fc.property(fc.string(), fc.string(), (tz, by) => {
        const query = readUsageQuery(new URLSearchParams({ tz, by }));
        expect(query.tz.length).toBeLessThanOrEqual(64);
        if (!('problem' in query)) expect(SPLITS.map((split) => split.by)).toContain(query.by);
      }),
    );
  });

  it('reads the CSV export’s grouping and dates, with a problem for anything else', () => {
    expect(readCsvQuery(new URLSearchParams())).toEqual({ tz: 'UTC', by: 'day' });
    expect(readCsvQuery(new URLSearchParams('by=model&tz=Asia/Kolkata&from=2026-11-01&to=2026-11-30'))).toEqual({ tz: 'Asia/Kolkata', by: 'model', from: '2026-11-01', to: '2026-11-30' });
    expect(readCsvQuery(new URLSearchParams('by=week'))).toEqual({ problem: 'by must be one of day, route, provider, key, model, member, workspace.' });
    expect(readCsvQuery(new URLSearchParams('from=1%20Nov'))).toEqual({ problem: 'from must be a date, YYYY-MM-DD.' });
  });

  it('accepts request ids as the router does, and shows instants in the chosen zone', () => {
    expect(isRequestId('req_0192f3a4b5c6d7e8f9a0b1c2d3e4f5a6')).toBe(true);
    expect(isRequestId('client:trace-1.2_3')).toBe(true);
    for (const bad of ['', 'has space', '<script>', 'x'.repeat(129), 'ünïcode']) expect(isRequestId(bad), bad).toBe(false);
    expect(zonedLabel('2026-11-21T23:30:00.000Z', 'UTC')).toBe('2026-11-21 23:30');
    expect(zonedLabel('2026-11-21T23:30:00.000Z', 'Asia/Kathmandu')).toBe('2026-11-22 05:15');
    expect(zonedLabel('2026-11-21T23:30:00.000Z', 'America/New_York')).toBe('2026-11-21 18:30');
    expect(timeZoneNames()[0]).toBe('UTC');
    expect(timeZoneNames()).toContain('Europe/Berlin');
  });

  it('reads the member and workspace filters, and lets a member see only their own usage whatever the query says', () => {
    expect(readUsageQuery(new URLSearchParams('by=member&workspace=wks_1'))).toEqual({ tz: 'UTC', by: 'member', workspace: 'wks_1' });
    expect(readUsageQuery(new URLSearchParams('member=%3Cb%3E'))).toMatchObject({ problem: 'Choose the member from the list.' });
    expect(readCsvQuery(new URLSearchParams('by=workspace&member=psn_a'))).toEqual({ tz: 'UTC', by: 'workspace', member: 'psn_a' });
    const directory = {
      keys: [],
      people: new Map([['psn_a', 'a@example.com'], ['psn_b', 'b@example.com']]),
      workspaces: new Map([['wks_1', 'One']]),
    };
    expect(usageScopeFor({ role: 'viewer', personId: 'psn_b' }, {}, directory)).toEqual({ scope: {} });
    expect(usageScopeFor({ role: 'admin', personId: 'psn_b' }, { member: 'psn_a', workspace: 'wks_1' }, directory)).toEqual({ scope: { personId: 'psn_a', workspaceId: 'wks_1' } });
    expect(usageScopeFor({ role: 'owner', personId: 'psn_b' }, { member: 'psn_elsewhere' }, directory)).toMatchObject({ problem: expect.stringContaining('not in this organization') });
    expect(usageScopeFor({ role: 'owner', personId: 'psn_b' }, { workspace: 'wks_elsewhere' }, directory)).toMatchObject({ problem: expect.stringContaining('not in this organization') });
    fc.assert(
      fc.property(fc.constantFrom(...ROLES), fc.option(fc.constantFrom('psn_a', 'psn_b')), fc.option(fc.constantFrom('wks_1')), (role, member, workspace) => {
        const scoped = usageScopeFor({ role, personId: 'psn_b' }, { ...(member ? { member } : {}), ...(workspace ? { workspace } : {}) }, directory);
        if (!('scope' in scoped)) throw new Error('known filters are never a problem');
        if (role === 'member') expect(scoped.scope.personId).toBe('psn_b');
        else expect(scoped.scope.personId).toBe(member ?? undefined);
        expect(scoped.scope.workspaceId).toBe(workspace ?? undefined);
      }),
    );
  });
});
