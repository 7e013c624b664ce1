/** CSV of usage reports: RFC 4180 quoting (round-trips any text) and no formula a spreadsheet would run. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptySums } from '../../../src/stores/ledger-rollup.js';
import { csvField, usageReportCsv } from '../../../src/usage/usage-csv.js';
import { withUsd } from '../../../src/usage/usage-report.js';
import { rowTeams } from '../../../src/usage/usage-attribution.js';

/** A strict RFC 4180 reader, written from the RFC for this test: fields, quoted fields, doubled quotes. */
function readCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"' && field === '') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\n') throw new Error(`text after a closing quote at ${i}`);
    } else if (text[i] === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (text[i] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      if (text[i] === '"' || text[i] === '\r') throw new Error(`bare ${JSON.stringify(text[i])} in an unquoted field at ${i}`);
      field += text[i++];
    }
  }
  if (field !== '' || row.length) throw new Error('missing final newline');
  return rows;
}

const row = (group: string | null, requests: number) => withUsd({ ...emptySums(group), requests, costNanoUsd: 1 });

describe('usage CSV', () => {
  it('reads back every field exactly, whatever it contains (a formula-looking one with a leading apostrophe)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 20 }), { minLength: 1, maxLength: 6 }), (fields) => {
        const [parsed] = readCsv(`${fields.map(csvField).join(',')}\n`);
        expect(parsed).toEqual(fields.map((field) => (/^[=+\-@\t\r]/.test(field) ? `'${field}` : field)));
      }),
      { numRuns: 200 },
    );
  });

  it('quotes only when it must, and never lets a cell start a formula', () => {
    expect(csvField('router/frontier')).toBe('router/frontier');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK("http://evil")')).toBe('"\'=HYPERLINK(""http://evil"")"');
    expect(csvField('@SUM(A1)')).toBe('"\'@SUM(A1)"');
  });

  it('writes a header, one line per row and the totals, the same columns as router usage --csv', () => {
    const csv = usageReportCsv({ by: 'key', rows: [row('key_1', 2), row(null, 1), row('odd, "name"', 4)], totals: row(null, 7) });
    const lines = readCsv(csv);
    expect(lines[0]).toEqual(['key', 'requests', 'failed_requests', 'calls', 'prompt_tokens', 'completion_tokens', 'reasoning_tokens', 'cached_tokens', 'unknown_usage_calls', 'unpriced_calls', 'cost_usd', 'managed_spend_usd',
      'cache_write_tokens', 'cache_write_1h_tokens', 'input_cost_usd', 'cache_read_cost_usd', 'cache_write_cost_usd', 'cache_write_1h_cost_usd', 'output_cost_usd', 'reasoning_cost_usd', 'cache_savings_usd', 'response_cache_hits', 'response_cache_saved_usd', 'member', 'workspace']);
    expect(lines.slice(1).every((line) => line.length === 25 && line[23] === '' && line[24] === '')).toBe(true);
    expect(lines.slice(1).map((line) => [line[0], line[1], line[10]])).toEqual([
      ['key_1', '2', '0.000000001'],
      ['', '1', '0.000000001'],
      ['odd, "name"', '4', '0.000000001'],
      ['total', '7', '0.000000001'],
    ]);
    expect(readCsv(usageReportCsv({ by: 'day', rows: [], totals: withUsd({ ...emptySums(), costNanoUsd: 1_500, inputCostNanoUsd: 400, cacheReadCostNanoUsd: 20, cacheWriteCostNanoUsd: 125, cacheWrite1hCostNanoUsd: 200, outputCostNanoUsd: 675, reasoningCostNanoUsd: 80, cacheSavingsNanoUsd: 180, cacheWriteTokens: 300, cacheWrite1hTokens: 120 }) }))[1]!.slice(10)).toEqual(
      ['0.0000015', '0.00', '300', '120', '0.0000004', '0.00000002', '0.000000125', '0.0000002', '0.000000675', '0.00000008', '0.00000018', '0', '0.00', '', ''],
    );
  });

  it('appends whose usage each line is: by key the key’s holder and workspace, by member or workspace its own, else the scope', () => {
    const directory = {
      keys: [
        { keyId: 'key_a', personId: 'psn_a', workspaceId: 'wks_main' },
        { keyId: 'key_b', personId: 'psn_b', workspaceId: 'wks_lab' },
      ],
      people: new Map([['psn_a', 'ann@example.com'], ['psn_b', '=bob@example.com']]),
      workspaces: new Map([['wks_main', 'Main'], ['wks_lab', 'Lab, north']]),
    };
    const teamCells = (by: string, rows: (string | null)[], scope = {}) =>
      readCsv(usageReportCsv({ by, rows: rows.map((group) => row(group, 1)), totals: row(null, rows.length) }, rowTeams(directory, by, scope))).slice(1).map((line) => [line[0], line[23], line[24]]);
    expect(teamCells('key', ['key_a', 'key_b', null])).toEqual([
      ['key_a', 'ann@example.com', 'Main'],
      // Quoted and defused like every other field.
      ['key_b', "'=bob@example.com", 'Lab, north'],
      ['', '', ''],
      ['total', '', ''],
    ]);
    expect(teamCells('member', ['psn_b', null], { workspaceId: 'wks_lab' })).toEqual([
      ['psn_b', "'=bob@example.com", 'Lab, north'],
      ['', '', 'Lab, north'],
      ['total', '', 'Lab, north'],
    ]);
    expect(teamCells('day', ['2026-11-20'], { personId: 'psn_a' })).toEqual([
      ['2026-11-20', 'ann@example.com', ''],
      ['total', 'ann@example.com', ''],
    ]);
  });
});
