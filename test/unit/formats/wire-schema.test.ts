/** The request-schema builders: the JSON they emit is what ajv checks, and kinds are told apart by `type`. */
import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { AnyObject, Kinds, Nullable, StringEnum, StringOrArray, When, WithUnchecked } from '../../../src/formats/wire-schema.js';

const validator = (schema: object) => new Ajv({ allErrors: false, strict: false }).compile(schema);

describe('wire-schema builders', () => {
  it('writes a nullable field as one type array, keeping its bounds', () => {
    expect(JSON.parse(JSON.stringify(Nullable(Type.Integer({ minimum: 1, maximum: 5 }))))).toEqual({ type: ['integer', 'null'], minimum: 1, maximum: 5 });
    const validate = validator(Nullable(Type.Integer({ minimum: 1 })));
    expect([validate(null), validate(3), validate(0), validate('3')]).toEqual([true, true, false, false]);
  });

  it('checks each kind by its type, and lets a kind it does not name pass with only its type string', () => {
    const part = Kinds([When('text', { text: Type.String() }), When('image', { url: Type.String(), detail: Type.Optional(Type.String()) })]);
    const validate = validator(part);
    expect(validate({ type: 'text', text: 'hi' })).toBe(true);
    expect(validate({ type: 'text' })).toBe(false);
    expect(validate({ type: 'image', text: 'no url' })).toBe(false);
    expect(validate({ type: 'audio', anything: 1 })).toBe(true);
    expect(validate({ text: 'no type' })).toBe(false);
    expect(validate({ type: 7 })).toBe(false);
  });

  it('accepts a string or an array of items, null only when asked', () => {
    const content = validator(StringOrArray(Type.Integer(), { maxItems: 2 }));
    expect([content('x'), content([1, 2]), content([1, 2, 3]), content(['a']), content(null)]).toEqual([true, true, false, false, false]);
    expect(validator(StringOrArray(Type.String(), { nullable: true }))(null)).toBe(true);
  });

  it('leaves the schema as it is where the type only adds what is unchecked', () => {
    const object = AnyObject();
    expect(WithUnchecked<{ extra?: string }>()(object)).toBe(object);
    expect(JSON.parse(JSON.stringify(StringEnum(['a', 'b'], { typed: true })))).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(JSON.parse(JSON.stringify(StringEnum(['a'])))).toEqual({ enum: ['a'] });
  });
});
