/**
 * What a preset holds and how it is made from a request: one API-neutral configuration (model, provider
 * preferences, system prompt, sampling parameters), so a preset saved from a chat completion serves a
 * Responses or Messages request too (preset-merge.ts writes it in each API's fields). Saving from a
 * real request body keeps only these configuration fields: the conversation (`messages`, `input`), tools,
 * streaming and everything else are dropped, never stored. A system prompt is kept, as OpenRouter's
 * presets keep it: from chat's leading system message, Responses' `instructions` or Messages' `system`.
 */
import { Type, type Static } from '@sinclair/typebox';

/** The three APIs a preset applies to. */
export type PresetApi = 'chat' | 'responses' | 'messages';

const SYSTEM_MAX = 32_768;
const MAX_TOKENS_MAX = 1_000_000;

export const presetConfigSchema = Type.Object(
  {
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A route profile or concrete model; `@preset/<slug>` uses it.' })),
    provider: Type.Optional(Type.Object({}, { additionalProperties: true, description: "Provider preferences, as the request's `provider` object." })),
    system: Type.Optional(Type.String({ maxLength: SYSTEM_MAX, description: 'System prompt: chat gets it as a leading system message, Responses as `instructions`, Messages as `system`.' })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_k: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'Messages only.' })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKENS_MAX, description: "Output cap: chat's max_tokens, Responses' max_output_tokens, Messages' max_tokens." })),
    stop: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 4, description: "Chat's stop, Messages' stop_sequences." })),
    seed: Type.Optional(Type.Integer({ minimum: -9_007_199_254_740_991, maximum: 9_007_199_254_740_991, description: 'Chat only.' })),
    presence_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2, description: 'Chat only.' })),
    frequency_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2, description: 'Chat only.' })),
    reasoning_effort: Type.Optional(Type.Union([Type.Literal('minimal'), Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')], { description: "Chat's reasoning_effort, Responses' reasoning.effort." })),
  },
  { additionalProperties: false },
);

export type PresetConfig = Static<typeof presetConfigSchema>;

/** Every field a preset's configuration may have. */
export const PRESET_CONFIG_FIELDS: ReadonlySet<string> = new Set(Object.keys(presetConfigSchema.properties));

/** A preset's configuration, serialized, is at most this large (the system prompt is most of it). */
export const PRESET_CONFIG_MAX_BYTES = 64 * 1024;

/** `@preset/<slug>` or `<model>@preset/<slug>` in a request's `model`; undefined for any other model. */
export function parsePresetReference(model: unknown): { slug: string; model: string | undefined } | undefined {
  if (typeof model !== 'string') return undefined;
  const at = model.indexOf('@preset/');
  if (at < 0) return undefined;
  return { slug: model.slice(at + '@preset/'.length), model: at === 0 ? undefined : model.slice(0, at) };
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isText = (value: unknown): value is string => typeof value === 'string';
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Text of a string or of an array of text parts (`{type: 'text', text}`); undefined for anything else. */
function textOf(content: unknown): string | undefined {
  if (isText(content)) return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts = content.map((part) => (isPlainObject(part) && part.type === 'text' && isText(part.text) ? part.text : undefined));
  return texts.every(isText) ? texts.join('\n\n') : undefined;
}

function chatSystem(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const first: unknown = messages[0];
  return isPlainObject(first) && (first.role === 'system' || first.role === 'developer') ? textOf(first.content) : undefined;
}

/**
 * The configuration a request body states, and nothing else: each field only when it has the type the
 * preset keeps (ranges are checked by presetConfigSchema when it is saved). Never the conversation.
 */
export function configFromRequest(api: PresetApi, body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const put = (field: keyof PresetConfig, value: unknown, ok: (value: unknown) => boolean) => {
    if (value !== undefined && value !== null && ok(value)) config[field] = value;
  };
  const reference = parsePresetReference(body.model);
  put('model', reference ? reference.model : body.model, isText);
  put('provider', body.provider, isPlainObject);
  put('temperature', body.temperature, isNumber);
  put('top_p', body.top_p, isNumber);
  const effort = (reasoning: unknown) => (isPlainObject(reasoning) ? reasoning.effort : undefined);
  if (api === 'chat') {
    put('system', chatSystem(body.messages), isText);
    put('max_tokens', body.max_completion_tokens ?? body.max_tokens, Number.isInteger);
    put('stop', isText(body.stop) ? [body.stop] : body.stop, (value) => Array.isArray(value) && value.every(isText));
    put('seed', body.seed, Number.isInteger);
    put('presence_penalty', body.presence_penalty, isNumber);
    put('frequency_penalty', body.frequency_penalty, isNumber);
    put('reasoning_effort', body.reasoning_effort ?? effort(body.reasoning), isText);
  } else if (api === 'responses') {
    put('system', body.instructions, isText);
    put('max_tokens', body.max_output_tokens, Number.isInteger);
    put('reasoning_effort', effort(body.reasoning), isText);
  } else {
    put('system', textOf(body.system), isText);
    put('max_tokens', body.max_tokens, Number.isInteger);
    put('top_k', body.top_k, Number.isInteger);
    put('stop', body.stop_sequences, (value) => Array.isArray(value) && value.every(isText));
  }
  return config;
}
