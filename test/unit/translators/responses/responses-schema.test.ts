/**
 * Validates what the Responses translators emit against JSON Schemas of OpenAI's Responses API:
 * always against the project's own (test/schemas/openai-responses.schema.json, written from OpenAI's API
 * reference and the openai SDK's types), and, as a cross-check, against OpenAI's published schema when a
 * copy sits beside the project (../shared/reference). That file is not in the repository, so the
 * cross-check is skipped, with a printed reason, where it is absent.
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

const PROJECT_SCHEMA_FILE = fileURLToPath(new URL('../../../schemas/openai-responses.schema.json', import.meta.url));
const PUBLISHED_SCHEMA_FILE = fileURLToPath(new URL('../../../../../shared/reference/openai-openapi-subset.json', import.meta.url));

interface ResponsesSchemas {
  validator(name: string): ValidateFunction;
  /** The name of the ResponseStreamEvent member whose `type` is this event type. */
  eventSchemaName(type: string): string | undefined;
}

type SchemaMap = Record<string, { properties?: { type?: { const?: string; enum?: string[] } }; oneOf?: Array<{ $ref: string }>; anyOf?: Array<{ $ref: string }> }>;

/** Compiles a document whose named schemas sit at `pointer` (`#/$defs` or `#/components/schemas`). */
function compileSchemas(document: object, id: string, pointer: string, schemas: SchemaMap, ajvOptions: object): ResponsesSchemas {
  const ajv = new Ajv2019({ allErrors: true, ...ajvOptions });
  ajv.addSchema({ ...document, $id: id });
  const event = schemas.ResponseStreamEvent;
  const byType = new Map<string, string>();
  for (const { $ref } of event?.oneOf ?? event?.anyOf ?? []) {
    const name = $ref.split('/').at(-1) ?? '';
    const type = schemas[name]?.properties?.type;
    for (const value of type?.const !== undefined ? [type.const] : (type?.enum ?? [])) byType.set(value, name);
  }
  return {
    validator: (name) => {
      const validate = ajv.getSchema(`${id}${pointer}/${name}`);
      if (!validate) throw new Error(`no schema named ${name}`);
      return validate;
    },
    eventSchemaName: (type) => byType.get(type),
  };
}

function loadProjectSchemas(): ResponsesSchemas {
  const document = JSON.parse(readFileSync(PROJECT_SCHEMA_FILE, 'utf8')) as { $id: string; $defs: SchemaMap };
  // Written for Ajv: strict mode on, so a keyword misspelt in the schema is an error rather than ignored.
  return compileSchemas(document, document.$id, '#/$defs', document.$defs, { strict: true, allowUnionTypes: true, discriminator: true });
}

function loadPublishedSchemas(): ResponsesSchemas {
  const document = JSON.parse(readFileSync(PUBLISHED_SCHEMA_FILE, 'utf8')) as { schemas: SchemaMap };
  // OpenAPI 3.1 keywords Ajv does not know (discriminator, nullable) and custom formats constrain no
  // shape here, so they are ignored rather than implemented.
  const id = 'https://schemas.invalid/openai-openapi-subset.json';
  return compileSchemas({ components: { schemas: document.schemas } }, id, '#/components/schemas', document.schemas, { strict: false, validateFormats: false });
}

const publishedSkipReason = existsSync(PUBLISHED_SCHEMA_FILE) ? undefined : `${PUBLISHED_SCHEMA_FILE} does not exist`;
if (publishedSkipReason) console.warn(`Skipping the cross-check against OpenAI's published Responses schema: ${publishedSkipReason}.`);

const SCHEMA_SETS = [
  { name: "the project's Responses schema", load: loadProjectSchemas, skipReason: undefined },
  { name: "OpenAI's published Responses schema (cross-check)", load: loadPublishedSchemas, skipReason: publishedSkipReason },
];

function problems(validate: ValidateFunction, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}

for (const { name, load, skipReason } of SCHEMA_SETS) describe.skipIf(skipReason !== undefined)(name, () => {
  let schemas: ResponsesSchemas;
  beforeAll(() => {
    schemas = load();
  });

  function expectValidEvents(events: ResponsesStreamEvent[]): void {
    const anyEvent = schemas.validator('ResponseStreamEvent');
    for (const event of events) {
      const name = schemas.eventSchemaName(event.type);
      expect(name, `${event.type} is an event type of the schema`).toBeDefined();
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

describe("the project's Responses schema on its own", () => {
  // Stricter than the published schema: it lists every property, so these fail here and not there.
  it('rejects a misspelt field, a wrong item role and an event type it does not know', () => {
    const schemas = loadProjectSchemas();
    const events = replay(STREAM_SCENARIOS.text);
    const [delta] = eventsOfType(events, 'response.output_text.delta');
    const { sequence_number: sequenceNumber, ...rest } = delta!;
    expect(problems(schemas.validator('ResponseTextDeltaEvent'), { ...rest, sequence_numbr: sequenceNumber })).not.toStrictEqual([]);
    const response = terminalResponse(events);
    const message = response.output[0]!;
    expect(schemas.validator('Response')({ ...response, output: [{ ...message, role: 'user' }] })).toBe(false);
    expect(schemas.validator('Response')({ ...response, store: 'no' })).toBe(false);
    expect(schemas.validator('ResponseStreamEvent')({ ...delta, type: 'response.output_text.delta_v2' })).toBe(false);
    expect(schemas.eventSchemaName('response.output_text.delta')).toBe('ResponseTextDeltaEvent');
  });
});
