/**
 * Builders for the JSON Schemas of request bodies (the body stage compiles them with ajv), each typed
 * with TypeBox so the request types are derived from the schema: a field added to a schema is in its
 * type. They emit the shapes OpenAI's and Anthropic's specs use (`type: ['integer', 'null']`, kinds told
 * apart by `if`/`then` on their `type`), which TypeBox's own builders would write differently.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema, type TUnsafe } from '@sinclair/typebox';

type Json = Record<string, unknown>;

/** The API's own bound on an output cap, for every client API; a plan's maxOutputTokens may lower it (http/output-token-cap.ts). */
export const MAX_OUTPUT_TOKENS = 1_000_000;

/** The schema, or null: its `type` with `'null'` added, as one `type` array. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema as Json;
  return Type.Unsafe<Static<T> | null>({ type: [...(Array.isArray(type) ? type : [type]), 'null'], ...rest });
}

/** A string, or an array of `items` (`nullable`: or null): one `type` array, as the specs write content. */
export function StringOrArray<Item extends TSchema, const Null extends boolean = false>(
  items: Item,
  options: { nullable?: Null; maxItems?: number } = {},
): TUnsafe<string | Static<Item>[] | (Null extends true ? null : never)> {
  const { nullable, ...rest } = options;
  return Type.Unsafe({ type: nullable ? ['string', 'array', 'null'] : ['string', 'array'], items, ...rest });
}

/** One of these strings; `typed`: with `type: 'string'` beside the enum, as the chat schema writes roles. */
export function StringEnum<const Values extends readonly string[]>(values: Values, options: { typed?: boolean } = {}): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>(options.typed ? { type: 'string', enum: [...values] } : { enum: [...values] });
}

/**
 * The validator checks `schema`; the type is `Declared`, narrower than what passes (a literal the API
 * documents where the router accepts any string and leaves it to the upstream, or an open union the
 * schema cannot express). Used only where the translators rely on the narrower type.
 */
export function Declared<Shape>(schema: TSchema): TUnsafe<Shape> {
  return Type.Unsafe<Shape>(schema);
}

/** One kind of a {@link Kinds} object: when its `type` is `value`, these properties (required unless Optional). */
export function When<const Value extends string, Properties extends TProperties>(
  value: Value,
  properties: Properties,
): TUnsafe<{ type: Value } & Static<TObject<Properties>>> {
  return Type.Unsafe(kindCheck(value, properties, true));
}

/** {@link When}, and an object without a `type` is this kind too (the Responses API's "easy" message items). */
export function WhenOrUntyped<const Value extends string, Properties extends TProperties>(
  value: Value,
  properties: Properties,
): TUnsafe<{ type?: Value } & Static<TObject<Properties>>> {
  return Type.Unsafe(kindCheck(value, properties, false));
}

function kindCheck(value: string, properties: TProperties, typeRequired: boolean): Json {
  const { type: _object, ...then } = Type.Object(properties) as unknown as Json;
  const match = { properties: { type: { const: value } }, ...(typeRequired ? { required: ['type'] } : {}) };
  return { if: match, then };
}

/**
 * An object of one of several kinds told apart by its `type` string: each `When` checks its own kind;
 * a `type` none of them names passes with only that string checked (typed as the kinds listed).
 */
export function Kinds<const Kind extends readonly TSchema[]>(kinds: Kind, extra: Json = {}): TUnsafe<Static<Kind[number]>> {
  return Type.Unsafe({ type: 'object', required: ['type'], properties: { type: Type.String() }, allOf: kinds, ...extra });
}

/** Any JSON object (`{ type: 'object' }`), typed as `Shape` where the router reads it as one. */
export function AnyObject<Shape = Record<string, unknown>>(): TUnsafe<Shape> {
  return Type.Unsafe<Shape>({ type: 'object' });
}

/**
 * Fields the router reads but the schema leaves unchecked (they are passed on as they came): added to
 * the type of `schema`, which stays as it is. Curried so `Extra` is written and the schema inferred.
 */
export function WithUnchecked<Extra>() {
  return <T extends TSchema>(schema: T): TUnsafe<Static<T> & Extra> => schema as unknown as TUnsafe<Static<T> & Extra>;
}

/** Exactly this string, as a bare `const` (TypeBox's Literal would add `type: 'string'`). */
export function Const<const Value extends string>(value: Value): TUnsafe<Value> {
  return Type.Unsafe<Value>({ const: value });
}

/** {@link Kinds} whose type admits what the schema lets through besides the kinds it names: any other `type`. */
export function OrOtherKind<T extends TSchema>(kinds: T): TUnsafe<Static<T> | OtherKind> {
  return kinds as unknown as TUnsafe<Static<T> | OtherKind>;
}

/**
 * {@link Kinds} whose type adds the kinds the schema lets through unchecked but the router reads (typed
 * by hand: hosted tools, reasoning items). Curried so `Other` is written and the schema inferred.
 */
export function OrKinds<Other>() {
  return <T extends TSchema>(kinds: T): TUnsafe<Static<T> | Other> => kinds as unknown as TUnsafe<Static<T> | Other>;
}

/** An object of a kind none of the schema's `When`s names: only its `type` string is checked. */
export interface OtherKind {
  type: string;
  [key: string]: unknown;
}
