/**
 * Text from outside the router (a caller's JSON keys, an upstream's error type or code) used as a key:
 * `__proto__` and `constructor` are names like any other, never Object's own members (the audit after
 * Gemini's input_type bug, 1383ac3).
 */
import { describe, expect, it } from 'vitest';
import { PresetInputError, checkPresetConfig } from '../../../src/accounts/preset-service.js';
import { anthropicFailure } from '../../../src/providers/anthropic/anthropic-failure.js';
import { responsesStreamFailure } from '../../../src/providers/openai/responses-stream-failure.js';
import { portableSchema } from '../../../src/translators/messages/messages-tools-to-chat.js';

const OBJECT_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'] as const;

describe('caller- and upstream-keyed look-ups', () => {
  it.each(OBJECT_NAMES)('keeps a tool schema property named %s as a property (Messages tools to chat)', (name) => {
    const schema = JSON.parse(`{"type": "object", "properties": {"${name}": {"type": "string", "exclusiveMinimum": 1}}, "required": ["${name}"]}`);
    const portable = portableSchema(schema) as { properties: Record<string, unknown> };
    expect(Object.getPrototypeOf(portable.properties)).toBe(Object.prototype);
    expect(Object.keys(portable.properties)).toEqual([name]);
    expect(JSON.parse(JSON.stringify(portable))).toEqual({ type: 'object', properties: { [name]: { type: 'string', minimum: 1 } }, required: [name] });
  });

  it.each(OBJECT_NAMES)("says a preset field named %s is not a preset field", (name) => {
    const config = JSON.parse(`{"${name}": 1}`);
    let thrown: unknown;
    try {
      checkPresetConfig(config);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PresetInputError);
    expect((thrown as PresetInputError).message).toContain(`'${name}' is not a preset field`);
  });

  it.each(OBJECT_NAMES)("gives an Anthropic stream error of type %s the unknown type's status, 500", (name) => {
    expect(anthropicFailure(undefined, { type: name, message: 'odd' }).status).toBe(500);
  });

  it.each(OBJECT_NAMES)('gives a Responses stream failure with code %s the unknown code’s status, 502', (name) => {
    const failure = responsesStreamFailure({ type: 'error', code: name, message: 'odd' });
    expect(failure.status).toBe(502);
    expect(failure.type).toBe('upstream_error');
  });
});
