/** The config schema builders: what ajv is given, and how defaults and required keys relate. */
import { Type } from '@sinclair/typebox';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ConfigObject, Const, FileSchema, LocalRef, OneOf, StringMap } from '../../../src/config/schemas/schema-builders.js';

const json = (schema: object) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

describe('config schema builders', () => {
  it('requires a key unless it is Optional or has a default, and refuses unknown keys', () => {
    const schema = ConfigObject({ id: Type.String(), port: Type.Integer({ default: 8787 }), note: Type.Optional(Type.String()) });
    expect(json(schema)).toMatchObject({ type: 'object', additionalProperties: false, required: ['id'] });
    const validate = new Ajv2020({ useDefaults: true, strict: true }).compile(schema);
    const data: Record<string, unknown> = { id: 'a' };
    expect(validate(data)).toBe(true);
    expect(data).toEqual({ id: 'a', port: 8787 });
    expect(validate({ port: 1 })).toBe(false);
    expect(validate({ id: 'a', typo: 1 })).toBe(false);
  });

  it('writes no required list when every key may be left out', () => {
    expect('required' in json(ConfigObject({ a: Type.Boolean({ default: true }), b: Type.Optional(Type.String()) }))).toBe(false);
  });

  it('emits enum, const, maps and local references as the JSON files have them', () => {
    expect(json(OneOf(['a', 'b'], { default: 'a' }))).toEqual({ default: 'a', enum: ['a', 'b'] });
    expect(json(Const('auto'))).toEqual({ const: 'auto' });
    expect(json(StringMap(Type.String(), { default: {} }))).toEqual({ default: {}, type: 'object', additionalProperties: { type: 'string' } });
    const tiers = Type.Array(Type.String());
    const file = FileSchema('x.yaml', 'A file.', { tiers: LocalRef('tiers', tiers, { description: 'Tiers.' }) }, { $defs: { tiers } });
    expect(json(file)).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'x.yaml', properties: { tiers: { description: 'Tiers.', $ref: '#/$defs/tiers' } } });
    const validate = new Ajv2020({ strict: true }).compile(file);
    expect([validate({ tiers: ['a'] }), validate({ tiers: [1] })]).toEqual([true, false]);
  });
});
