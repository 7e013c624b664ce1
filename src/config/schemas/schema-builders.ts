/**
 * The few builders the config file schemas are written with, on top of TypeBox. Each returns a plain
 * JSON Schema (draft 2020-12, what ajv compiles and what schemas/*.json holds) whose TypeBox type gives
 * the TypeScript shape of the data once it has passed validation.
 */
import { Type, type ObjectOptions, type SchemaOptions, type Static, type TObject, type TProperties, type TSchema, type TUnsafe } from '@sinclair/typebox';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * An object with exactly these keys (unknown keys are errors, with a "did you mean"). A property is
 * required in the file unless it is `Type.Optional` or has a `default`. A defaulted property stays
 * required in the TypeScript type, because ajv (useDefaults) has filled it in by the time code reads it.
 */
export function ConfigObject<Properties extends TProperties>(properties: Properties, options: ObjectOptions = {}): TObject<Properties> {
  const schema = Type.Object(properties, { additionalProperties: false, ...options });
  const json = schema as { required?: string[] };
  const required = (json.required ?? []).filter((key) => !('default' in (properties[key] as object)));
  if (required.length > 0) json.required = required;
  else delete json.required;
  return schema;
}

/** The schema of one whole YAML file: `title` is the file's name, shown by operators' editors. */
export function FileSchema<Properties extends TProperties>(title: string, description: string, properties: Properties, options: ObjectOptions = {}): TObject<Properties> {
  return ConfigObject(properties, { $schema: DIALECT, title, description, ...options });
}

/** One of these strings, as a JSON Schema `enum` (its error lists them all: "must be one of: …"). */
export function OneOf<const Values extends readonly string[]>(values: Values, options: SchemaOptions = {}): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>({ ...options, enum: [...values] });
}

/** Exactly this string, as a bare `const` (a branch of an anyOf). */
export function Const<const Value extends string>(value: Value, options: SchemaOptions = {}): TUnsafe<Value> {
  return Type.Unsafe<Value>({ ...options, const: value });
}

/** A map from free keys to values of one schema (`additionalProperties`; `propertyNames` may constrain the keys). */
export function StringMap<Values extends TSchema>(values: Values, options: SchemaOptions = {}): TUnsafe<Record<string, Static<Values>>> {
  return Type.Unsafe<Record<string, Static<Values>>>({ ...options, type: 'object', additionalProperties: values });
}

/**
 * A `$ref` to `#/$defs/<name>` of the same file, typed as the definition: the file schema lists the same
 * definition under that name in its `$defs`.
 */
export function LocalRef<Definition extends TSchema>(name: string, _definition: Definition, options: SchemaOptions = {}): TUnsafe<Static<Definition>> {
  return Type.Unsafe<Static<Definition>>({ ...options, $ref: `#/$defs/${name}` });
}
