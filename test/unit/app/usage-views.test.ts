/** The usage page's query: any input gives the defaults, a value it offers, or a problem to show; never a throw. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPLITS, isRequestId, readCsvQuery, readUsageQuery, timeZoneNames, zonedLabel } from '../../../src/app/usage-views.js';

describe('usage page query', () => {
  it('defaults to UTC split by route profile, and refuses splits it does not offer', () => {
    expect(readUsageQuery(new URLSearchParams())).toEqual({ tz: 'UTC', by: 'route' });
    expect(readUsageQuery(new URLSearchParams('tz=Europe/Berlin&by=key'))).toEqual({ tz: 'Europe/Berlin', by: 'key' });
    expect(readUsageQuery(new URLSearchParams('by=day'))).toMatchObject({ problem: expect.stringContaining('from the list: Route profile, Provider, API key, Provider model.') });
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
    expect(readCsvQuery(new URLSearchParams('by=week'))).toEqual({ problem: 'by must be one of day, route, provider, key, model.' });
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
});
