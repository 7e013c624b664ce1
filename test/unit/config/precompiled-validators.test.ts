/**
 * The build ships the config validators as standalone code (scripts/compile-config-validators.mjs), so
 * `router check` and `router serve` start without compiling; tests running from src/ compile in memory.
 * Both must judge every document alike: the same verdict, the same errors (with the parent schema the
 * "did you mean" messages read) and the same defaults filled in.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileConfigValidators, configValidatorsModule } from '../../../src/config/compile-config-validators.js';
import { CONFIG_FILE_NAMES, type ConfigFileName } from '../../../src/config/config-files.js';
import { BASE_CONFIG_DIR } from './config-variant.js';

const projectRoot = join(import.meta.dirname, '../../..');
let dir: string;
let precompiled: Record<ConfigFileName, ValidateFunction>;
const compiled = compileConfigValidators();

beforeAll(async () => {
  // Inside the project, so the module's require() finds ajv's runtime helpers as it does in dist/.
  mkdirSync(join(projectRoot, 'test-results'), { recursive: true });
  dir = mkdtempSync(join(projectRoot, 'test-results', 'validators-'));
  const file = join(dir, 'config-validators.mjs');
  writeFileSync(file, configValidatorsModule());
  precompiled = (await import(pathToFileURL(file).href)) as Record<ConfigFileName, ValidateFunction>;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function judge(validate: ValidateFunction, document: unknown) {
  const data = structuredClone(document);
  const valid = validate(data);
  // The parent schema as JSON: the in-memory one also carries TypeBox's symbol-keyed markers, which the
  // standalone code (a JSON copy) cannot and which no message reads.
  const errors = (validate.errors ?? []).map(({ instancePath, keyword, params, message, parentSchema }) => ({
    instancePath,
    keyword,
    params,
    message,
    parentSchema: JSON.parse(JSON.stringify(parentSchema)) as unknown,
  }));
  return { valid, errors, data };
}

const baseDocument = (name: ConfigFileName): Record<string, unknown> => parse(readFileSync(join(BASE_CONFIG_DIR, `${name}.yaml`), 'utf8')) as Record<string, unknown>;

describe('precompiled config validators', () => {
  it('exports one validator per config file', () => {
    for (const name of CONFIG_FILE_NAMES) expect(typeof precompiled[name]).toBe('function');
  });

  it.each(CONFIG_FILE_NAMES)('judge the shipped %s.yaml as the in-memory compile does, defaults included', (name) => {
    const expected = judge(compiled.get(name)!, baseDocument(name));
    expect(expected.valid).toBe(true);
    expect(judge(precompiled[name], baseDocument(name))).toEqual(expected);
  });

  it('judge any top-level edit of any file alike: verdict, errors and filled defaults', () => {
    const edit = fc.record({
      name: fc.constantFrom(...CONFIG_FILE_NAMES),
      key: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('listen', 'storage', 'plans', 'routes', 'providers', 'families', 'models')),
      value: fc.jsonValue({ maxDepth: 3 }),
      drop: fc.boolean(),
    });
    fc.assert(
      fc.property(edit, ({ name, key, value, drop }) => {
        const document = baseDocument(name);
        if (drop) delete document[key];
        else document[key] = value;
        expect(judge(precompiled[name], document)).toEqual(judge(compiled.get(name)!, document));
      }),
      { numRuns: 300 },
    );
  });

  it('count string lengths in code points in plain Node too (the runtime helper the module requires)', () => {
    // Node itself, not the test runner's module loader (which lends every module a require()): a
    // minLength check calls ajv's ucs2length through the module's own require().
    const script = `
      const { server } = await import(${JSON.stringify(pathToFileURL(join(dir, 'config-validators.mjs')).href)});
      const verdict = (host) => server({ storage: 'sqlite:x.db', rateLimit: { backend: 'memory' }, listen: { host } });
      process.stdout.write(JSON.stringify([verdict('\u{1F600}'), verdict('')]));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual([true, false]); // minLength 1: one emoji is one character, nothing is too short
  });
});
