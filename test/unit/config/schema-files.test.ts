/**
 * schemas/*.json are generated from the TypeBox definitions in src/config/schemas/ (npm run schemas):
 * a committed file that differs from its definition, or a hand edit, fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE_NAMES } from '../../../src/config/config-files.js';
import { CONFIG_FILE_SCHEMAS, renderSchemaFile } from '../../../src/config/schemas/index.js';

describe('schemas/*.schema.json', () => {
  for (const name of CONFIG_FILE_NAMES) {
    it(`${name}.schema.json is what src/config/schemas/ defines`, () => {
      const committed = readFileSync(new URL(`../../../schemas/${name}.schema.json`, import.meta.url), 'utf8');
      expect(committed === renderSchemaFile(CONFIG_FILE_SCHEMAS[name]), `schemas/${name}.schema.json is out of date: run \`npm run schemas\``).toBe(true);
    });
  }

  it('leaves a defaulted property out of `required`: ajv fills it, so the file may omit it', () => {
    const routes = JSON.parse(renderSchemaFile(CONFIG_FILE_SCHEMAS.routes)) as {
      properties: { routes: { items: { required: string[]; properties: Record<string, { default?: unknown }> } } };
    };
    const route = routes.properties.routes.items;
    expect(route.properties.retryBudget?.default).toBe(3);
    expect(route.required).toEqual(['id', 'family', 'description', 'tiers']);
  });

  it('writes ASCII only, escaping the rest as the JSON files always have', () => {
    const text = renderSchemaFile(CONFIG_FILE_SCHEMAS.server);
    expect(text).toMatch(/\\u2026/);
    expect(/[^\x00-\x7f]/.test(text)).toBe(false);
  });
});
