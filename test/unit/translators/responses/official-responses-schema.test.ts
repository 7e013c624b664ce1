/**
 * Validates what the Responses translators emit against OpenAI's own JSON schemas. The schema file sits
 * beside the project (../shared/reference), not in it, so these checks are skipped when it is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2019, type ValidateFunction } from 'ajv/dist/2019.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../../../src/formats/openai-chat.js';
import type { ResponsesStreamEvent } from '../../../../src/formats/openai-responses.js';
import { chatCompletionToResponse } from '../../../../src/translators/responses/chat-to-responses.js';
import { CREATED_AT, eventsOfType, terminalResponse, testContext, USAGE } from './responses-fixtures.js';
import { CODEX_TOOLS, replay, replayFailure, STREAM_SCENARIOS } from './stream-scenarios.js';

const SCHEMA_FILE = fileURLToPath(new URL('../../../../../shared/reference/openai-openapi-subset.json', import.meta.url));
const SCHEMA_ID = 'https://schemas.invalid/openai-openapi-subset.json';
const available = existsSync(SCHEMA_FILE);
if (!available) console.warn(`Skipping the official Responses schema checks: ${SCHEMA_FILE} does not exist.`);

interface OfficialSchemas {
  validator(name: string): ValidateFunction;
  /** The schema name of the ResponseStreamEvent member whose `type` is this event type. */
  eventSchemaName(type: string): string | undefined;
}

function loadOfficialSchemas(): OfficialSchemas {
  const document = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as { schemas: Record<string, Record<string, unknown>> };
  // The schemas use OpenAPI 3.1 keywords Ajv does not know (discriminator, nullable) and custom formats;
  // none of them constrains the shape, so they are ignored rather than implemented.
  const ajv = new Ajv2019({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: SCHEMA_ID, components: { schemas: document.schemas } });
  const members = (document.schemas.ResponseStreamEvent?.anyOf ?? []) as Array<{ $ref: string }>;
  const byType = new Map<string, string>();
  for (const { $ref } of members) {
    const name = $ref.split('/').at(-1) ?? '';
    const typeEnum = (document.schemas[name]?.properties as { type?: { enum?: string[] } } | undefined)?.type?.enum ?? [];
    for (const type of typeEnum) byType.set(type, name);
  }
  return {
    validator: (name) => {
      const validate = ajv.getSchema(`${SCHEMA_ID}#/components/schemas/${name}`);
      if (!validate) throw new Error(`no schema named ${name}`);
      return validate;
    },
    eventSchemaName: (type) => byType.get(type),
  };
}

function problems(validate: ValidateFunction, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}

describe.skipIf(!available)('official OpenAI schemas', () => {
  let schemas: OfficialSchemas;
  beforeAll(() => {
    schemas = loadOfficialSchemas();
  });

  function expectValidEvents(events: ResponsesStreamEvent[]): void {
    const anyEvent = schemas.validator('ResponseStreamEvent');
    for (const event of events) {
      const name = schemas.eventSchemaName(event.type);
      expect(name, `${event.type} is an official event type`).toBeDefined();
      expect(problems(schemas.validator(name ?? ''), event), `${event.type} #${event.sequence_number}`).toStrictEqual([]);
      expect(anyEvent(event), `${event.type} #${event.sequence_number} is a ResponseStreamEvent`).toBe(true);
    }
  }

  it('rejects the mistakes it is here to catch, so that a pass means something', () => {
    const events = replay(STREAM_SCENARIOS.text);
    const [delta] = eventsOfType(events, 'response.output_text.delta');
    const { logprobs: _logprobs, ...deltaWithoutLogprobs } = delta ?? {};
    expect(schemas.validator('ResponseTextDeltaEvent')(deltaWithoutLogprobs)).toBe(false);
    const response = terminalResponse(events);
    expect(schemas.validator('Response')({ ...response, usage: null })).toBe(false);
    expect(schemas.validator('Response')({ ...response, tools: [{ type: 'function', name: 'f' }] })).toBe(false);
  });

  it.each(Object.entries(STREAM_SCENARIOS))('accepts every event of the %s stream', (_name, scenario) => {
    const events = replay(scenario);
    expect(events.length).toBeGreaterThan(3);
    expectValidEvents(events);
  });

  it.each(['server_error', 'rate_limit_exceeded'])('accepts a stream that fails with %s', (code) => {
    const events = replayFailure(STREAM_SCENARIOS['codex tool turn'], code);
    expect(events.at(-1)?.type).toBe('response.failed');
    expectValidEvents(events);
  });

  it('accepts non-streaming responses with text, calls, reasoning and echoed Codex tools', () => {
    const completion: ChatCompletion = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: CREATED_AT,
      model: 'upstream-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Applying the fix.',
            refusal: null,
            reasoning_content: 'The sign is wrong.',
            tool_calls: [
              { id: 'call_s', type: 'function', function: { name: 'shell', arguments: '{"command":["ls"]}' } },
              { id: 'call_p', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } },
            ],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: USAGE,
    };
    const response = chatCompletionToResponse(completion, testContext({ tools: CODEX_TOOLS, reasoning: { effort: 'high' }, text: { verbosity: 'low' } }));
    expect(response.output.map((item) => item.type)).toStrictEqual(['reasoning', 'message', 'function_call', 'custom_tool_call']);
    expect(problems(schemas.validator('Response'), response)).toStrictEqual([]);
  });
});
