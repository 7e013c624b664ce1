/**
 * Every body the body stage lets through either translates for each of the three adapters or is refused
 * with the contract's 400 naming the field: never an exception, which the router would have to answer
 * with a 500 (and, before, blamed on the provider).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { ChatRequest } from '../../../src/formats/openai-chat.js';
import type { ResponsesRequest } from '../../../src/formats/openai-responses.js';
import type { AdapterContext } from '../../../src/providers/adapter.js';
import type { UpstreamRequest } from '../../../src/upstream/upstream-request.js';
import { buildResponsesRequest } from '../../../src/providers/openai/build-responses-request.js';
import { createAdapterRegistry } from '../../../src/providers/registry.js';
import { responsesRequestToChat } from '../../../src/translators/responses/responses-request-to-chat.js';
import { anthropicContext } from '../providers/anthropic/anthropic-test-context.js';
import { geminiContext } from '../providers/gemini/gemini-test-context.js';
import { compatibleHost, openaiContext } from '../providers/openai/openai-context.js';
import { chatBody, responsesBody } from './request-arbitraries.js';

const adapters = createAdapterRegistry({ now: () => 1_760_000_000_000 });
const CONTEXTS: Record<string, (stream: boolean) => AdapterContext> = {
  openai: (stream) => openaiContext({}, { stream }),
  'openai-compatible host': (stream) => openaiContext(compatibleHost, { stream }),
  anthropic: (stream) => anthropicContext({ stream }),
  gemini: (stream) => geminiContext({ stream }),
};
const RUNS = 400;

/** The request that goes upstream is JSON; a refusal is the contract's 400 with a param. */
function expectTranslatesOrRefuses(translate: () => UpstreamRequest): void {
  let request: UpstreamRequest;
  try {
    request = translate();
  } catch (error) {
    if (!(error instanceof RouterError)) throw error;
    expect(error.status).toBe(400);
    expect(['invalid_request', 'unsupported_parameter']).toContain(error.code);
    expect(error.param, error.message).toEqual(expect.any(String));
    return;
  }
  expect(() => JSON.parse(request.body)).not.toThrow();
}

function adapterFor(context: AdapterContext) {
  return adapters[context.provider.format];
}

describe('any schema-valid chat body', () => {
  for (const [name, context] of Object.entries(CONTEXTS)) {
    it(`translates for ${name} or is refused with a 400 naming the field`, () => {
      fc.assert(
        fc.property(chatBody, fc.boolean(), (body, stream) => {
          const ctx = context(stream);
          expectTranslatesOrRefuses(() => adapterFor(ctx).buildChatRequest(structuredClone(body) as ChatRequest, ctx));
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('any schema-valid Responses body', () => {
  for (const [name, context] of Object.entries(CONTEXTS)) {
    it(`translates for ${name} (through chat) or is refused with a 400 naming the field`, () => {
      fc.assert(
        fc.property(responsesBody, fc.boolean(), (body, stream) => {
          const ctx = context(stream);
          expectTranslatesOrRefuses(() => adapterFor(ctx).buildChatRequest(responsesRequestToChat({ ...(structuredClone(body) as unknown as ResponsesRequest), stream }), ctx));
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('passes through natively to OpenAI or is refused with a 400 naming the field', () => {
    fc.assert(
      fc.property(responsesBody, fc.boolean(), (body, stream) => {
        expectTranslatesOrRefuses(() => buildResponsesRequest(structuredClone(body), openaiContext({}, { stream })));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the generators themselves', () => {
  it('produce bodies that exercise the translators (tools, parts, calls, nulls), not only the trivial ones', () => {
    const share = (bodies: Array<Record<string, unknown>>, test: (body: Record<string, unknown>) => boolean) => bodies.filter(test).length / bodies.length;
    const chats = fc.sample(chatBody, 500);
    const messages = (body: Record<string, unknown>) => body.messages as Array<Record<string, unknown>>;
    expect(share(chats, (body) => Array.isArray(body.tools) && body.tools.length > 0)).toBeGreaterThan(0.2);
    expect(share(chats, (body) => messages(body).some((m) => Array.isArray(m.content) && m.content.length > 0))).toBeGreaterThan(0.2);
    expect(share(chats, (body) => messages(body).some((m) => Array.isArray(m.tool_calls) && m.tool_calls.length > 0))).toBeGreaterThan(0.1);
    expect(share(chats, (body) => body.tool_choice === null || body.response_format === null)).toBeGreaterThan(0.01);
    const responses = fc.sample(responsesBody, 500);
    const items = (body: Record<string, unknown>) => (Array.isArray(body.input) ? (body.input as Array<{ type?: string }>) : []);
    expect(share(responses, (body) => items(body).some((item) => item.type === 'function_call'))).toBeGreaterThan(0.02);
    expect(share(responses, (body) => Array.isArray(body.tools) && body.tools.length > 0)).toBeGreaterThan(0.2);
  });
});
