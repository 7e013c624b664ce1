import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/check-config.js';
import { removeConfigVariants, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

const withLegal = (legal: string) => ({ 'server.yaml': (text: string) => `${text}\napp:\n  legal:\n${legal}` });

describe('app.legal in router check', () => {
  it('accepts terms and privacy files that are there, relative to the configuration directory', () => {
    const dir = writeConfigVariant(withLegal('    terms: terms.md\n    privacy: legal/../privacy.md\n'));
    writeFileSync(join(dir, 'terms.md'), '# Terms\n');
    writeFileSync(join(dir, 'privacy.md'), '# Privacy\n');
    expect(checkConfig(dir, {})).toMatchObject({ ok: true, problems: [] });
  });

  it('names a legal file that is missing, or a directory, at its line in server.yaml', () => {
    const dir = writeConfigVariant(withLegal('    terms: missing-terms.md\n    privacy: .\n'));
    const result = checkConfig(dir, {});
    expect(result.ok).toBe(false);
    expect(result.problems.map((problem) => problem.message)).toEqual([
      'app.legal.terms: no file at missing-terms.md (relative to the configuration directory)',
      'app.legal.privacy: no file at . (relative to the configuration directory)',
    ]);
    expect(result.problems[0]!.file).toBe(join(dir, 'server.yaml'));
    expect(result.problems[0]!.line).toBeGreaterThan(1);
  });

  it('refuses unknown keys under app.legal', () => {
    const dir = writeConfigVariant(withLegal('    cookies: cookies.md\n'));
    expect(checkConfig(dir, {}).ok).toBe(false);
  });
});
