/** Which recorded alerts the app's home still shows, and with which action. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openAlerts, SPIKE_SHOWN_MS, type AlertFactsNow } from '../../../src/alerts/open-alerts.js';
import { ALERT_KINDS, type AlertRecord } from '../../../src/stores/alert-store.js';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const facts: AlertFactsNow = { now: NOW, quotaPeriod: '2026-11', liveKeyIds: new Set(['key_live']), failingProviders: new Set(['openai']) };
let next = 0;
function alert(partial: Partial<AlertRecord>): AlertRecord {
  return { id: `alert_${next++}`, accountId: 'acct', kind: 'quota', subject: '', period: '2026-11', level: 80, details: {}, createdAt: new Date(NOW - 60_000).toISOString(), ...partial };
}

describe('openAlerts', () => {
  it('shows the highest level of a threshold this month, with "See usage"', () => {
    const shown = openAlerts([alert({ level: 100 }), alert({ level: 80 }), alert({ period: '2026-10', level: 100 })], facts);
    expect(shown).toHaveLength(1);
    expect(shown[0]!.alert.level).toBe(100);
    expect(shown[0]!.action).toEqual({ kind: 'link', label: 'See usage', page: 'usage' });
  });

  it("keeps a key's cap and a leaked-key signal only while the key works; the signal for a day", () => {
    const kinds = openAlerts(
      [
        alert({ kind: 'key_cap', subject: 'key_live' }),
        alert({ kind: 'key_cap', subject: 'key_revoked' }),
        alert({ kind: 'key_traffic_spike', subject: 'key_live', level: 0 }),
        alert({ kind: 'key_traffic_spike', subject: 'key_revoked', level: 0 }),
      ],
      facts,
    ).map((open) => open.action);
    expect(kinds).toEqual([{ kind: 'link', label: 'Change its cap', page: 'keys', anchor: 'key_live' }, { kind: 'revoke-key', keyId: 'key_live' }]);
    const old = alert({ kind: 'key_traffic_spike', subject: 'key_live', level: 0, createdAt: new Date(NOW - SPIKE_SHOWN_MS).toISOString() });
    expect(openAlerts([old], facts)).toEqual([]);
  });

  it('keeps a rejected provider key while it still fails, and never shows a new device', () => {
    const shown = openAlerts([alert({ kind: 'provider_key_rejected', subject: 'openai', level: 0 }), alert({ kind: 'provider_key_rejected', subject: 'gemini', level: 0 }), alert({ kind: 'new_device', subject: 'd', period: 'once', level: 0 })], facts);
    expect(shown.map((open) => [open.alert.subject, open.action])).toEqual([['openai', { kind: 'link', label: 'Fix provider key', page: 'provider-keys' }]]);
  });

  it('shows each kind and subject at most once, newest first, and only alerts it was given (property)', () => {
    const record = fc.record({
      kind: fc.constantFrom(...ALERT_KINDS),
      subject: fc.constantFrom('', 'key_live', 'key_other', 'openai', 'gemini'),
      period: fc.constantFrom('2026-10', '2026-11', '2026-11-26', 'once'),
      level: fc.constantFrom(0, 80, 100),
      ageMs: fc.nat({ max: 3 * 86_400_000 }),
    });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), (records) => {
        const alerts = records.map((r) => alert({ kind: r.kind, subject: r.subject, period: r.period, level: r.level, createdAt: new Date(NOW - r.ageMs).toISOString() }));
        const shown = openAlerts(alerts, facts);
        const keys = shown.map((open) => `${open.alert.kind}/${open.alert.subject}`);
        expect(new Set(keys).size).toBe(keys.length);
        for (const open of shown) expect(alerts).toContain(open.alert);
        for (let i = 1; i < shown.length; i++) expect(shown[i - 1]!.alert.createdAt >= shown[i]!.alert.createdAt).toBe(true);
        expect(shown.some((open) => open.alert.kind === 'new_device')).toBe(false);
      }),
    );
  });
});
