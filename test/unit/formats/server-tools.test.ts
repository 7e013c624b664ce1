/**
 * What the router reads as billable beyond tokens in each API's body, how it bounds the calls, how it
 * reads the calls an answer reports, and what they cost (issue 30).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SERVER_TOOL_NAMES } from '../../../src/config/schemas/plans-file.js';
import {
  chatBillableFeatures,
  messagesBillableFeatures,
  messagesServerToolCalls,
  messagesServerTools,
  responsesBillableFeatures,
  responsesServerToolCalls,
  responsesServerTools,
} from '../../../src/formats/server-tools.js';
import { COUNT_TOKENS_FIELDS, MESSAGES_FIELDS, RESPONSES_FIELDS, OPENROUTER_FIELDS } from '../../../src/formats/top-level-fields.js';
import { costNanoUsd, costPartsNanoUsd } from '../../../src/usage/model-prices.js';

const names = (features: Array<{ name: string }>) => features.map((feature) => feature.name);

describe('billable features of a Messages body', () => {
  it('passes client tools, and names each server tool, connector, container and premium tier with its field', () => {
    const clientTools = [{ name: 'f', input_schema: { type: 'object' } }, { type: 'custom', name: 'g' }, { type: 'bash_20250124', name: 'bash' }, { type: 'text_editor_20250728', name: 'e' }, { type: 'router:fusion' }];
    expect(messagesBillableFeatures({ tools: clientTools, service_tier: 'standard_only' })).toEqual([]);
    expect(
      messagesBillableFeatures({
        tools: [{ name: 'f' }, { type: 'web_search_20250305', name: 'web_search', max_uses: 50 }, { type: 'web_fetch_20250910', name: 'web_fetch' }, { type: 'code_execution_20250825', name: 'c' }],
        mcp_servers: [{ type: 'url', url: 'https://x' }],
        container: 'container_1',
        service_tier: 'auto',
        inference_geo: 'us',
      }),
    ).toEqual([
      { name: 'web_search', param: 'tools[1]', maxCalls: 50 },
      { name: 'web_fetch', param: 'tools[2]' },
      { name: 'code_execution', param: 'tools[3]' },
      { name: 'mcp', param: 'mcp_servers' },
      { name: 'code_execution', param: 'container' },
      { name: 'premium_tier', param: 'service_tier' },
      { name: 'premium_tier', param: 'inference_geo' },
    ]);
  });

  it('holds web_search and web_fetch to the bound: lowered, or set when absent; other tools untouched', () => {
    const body: Record<string, unknown> = {
      tools: [{ type: 'web_search_20250305', name: 'w', max_uses: 50 }, { type: 'web_fetch_20250910', name: 'f' }, { type: 'web_search_20250305', name: 'x', max_uses: 2 }, { name: 'client' }],
    };
    messagesServerTools(body).limitCalls(5);
    expect((body.tools as Array<{ max_uses?: number }>).map((tool) => tool.max_uses)).toEqual([5, 5, 2, undefined]);
  });

  it('reads usage.server_tool_use by tool name, ignoring zeros and anything not a count', () => {
    expect(messagesServerToolCalls({ web_search_requests: 3, web_fetch_requests: 0, code_execution_requests: 1.5, other: 2 })).toEqual({ web_search: 3 });
    expect(messagesServerToolCalls(null)).toBeUndefined();
    // Caller-shaped names stay plain keys: the counts are a null-prototype object.
    expect(Object.entries(messagesServerToolCalls({ __proto___requests: 1 })!)).toEqual([['__proto__', 1]]);
  });
});

describe('billable features of a Responses or chat body', () => {
  it('passes function, custom and local tools and cheaper tiers; names hosted tools by the names plans allow', () => {
    expect(responsesBillableFeatures({ tools: [{ type: 'function', name: 'f' }, { type: 'custom', name: 'c' }, { type: 'local_shell' }], service_tier: 'flex' })).toEqual([]);
    const features = responsesBillableFeatures({
      tools: [{ type: 'web_search_preview' }, { type: 'file_search' }, { type: 'code_interpreter' }, { type: 'image_generation' }, { type: 'computer_use_preview' }, { type: 'mcp' }, { type: 'tool_search' }],
      max_tool_calls: 3,
      service_tier: 'priority',
    });
    expect(names(features)).toEqual(['web_search', 'file_search', 'code_execution', 'image_generation', 'computer_use', 'mcp', 'tool_search', 'premium_tier']);
    expect(features[0]).toEqual({ name: 'web_search', param: 'tools[0]', maxCalls: 3 });
    expect(names(chatBillableFeatures({ web_search_options: {}, service_tier: 'scale' }))).toEqual(['web_search_options', 'premium_tier']);
  });

  it('names only tools a plan can allow, or ones no plan can (so they are always refused on managed keys)', () => {
    const allowable = new Set<string>(SERVER_TOOL_NAMES);
    const known = [
      ...messagesBillableFeatures({ tools: ['web_search_20250305', 'web_fetch_20250910', 'code_execution_20250825'].map((type) => ({ type, name: type })), mcp_servers: [{}], container: 'c' }),
      ...responsesBillableFeatures({ tools: ['web_search', 'web_search_2025_08_26', 'file_search', 'code_interpreter', 'image_generation', 'computer', 'mcp'].map((type) => ({ type })) }),
    ];
    expect(names(known).filter((name) => !allowable.has(name))).toEqual([]);
    expect(allowable.has('premium_tier')).toBe(false);
    expect(allowable.has('web_search_options')).toBe(false);
  });

  it('bounds max_tool_calls only when a hosted tool is asked for', () => {
    const hosted: Record<string, unknown> = { tools: [{ type: 'web_search' }], max_tool_calls: 40 };
    responsesServerTools(hosted).limitCalls(5);
    expect(hosted.max_tool_calls).toBe(5);
    const plain: Record<string, unknown> = { tools: [{ type: 'function', name: 'f' }] };
    responsesServerTools(plain).limitCalls(5);
    expect(plain).not.toHaveProperty('max_tool_calls');
  });

  it('counts a Response’s hosted tool call items', () => {
    expect(responsesServerToolCalls([{ type: 'web_search_call' }, { type: 'message' }, { type: 'web_search_call' }, { type: 'code_interpreter_call' }, null])).toEqual({ web_search: 2, code_execution: 1 });
    expect(responsesServerToolCalls([{ type: 'message' }])).toBeUndefined();
  });

  it('never throws on any JSON body, and reports only tools that are there', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (body) => {
        for (const read of [messagesBillableFeatures, responsesBillableFeatures, chatBillableFeatures]) {
          for (const feature of read(body)) expect(feature.param === 'service_tier' || feature.param in body || feature.param.startsWith('tools[')).toBe(true);
        }
      }),
    );
  });
});

describe('the allow lists', () => {
  it('list every billable field, so it is read before it is passed, and none of the router’s own', () => {
    for (const field of ['service_tier', 'mcp_servers', 'container', 'inference_geo', 'tools']) expect(MESSAGES_FIELDS.has(field)).toBe(true);
    for (const field of ['service_tier', 'tools', 'max_tool_calls']) expect(RESPONSES_FIELDS.has(field)).toBe(true);
    for (const list of [MESSAGES_FIELDS, COUNT_TOKENS_FIELDS, RESPONSES_FIELDS]) expect([...OPENROUTER_FIELDS].filter((field) => list.has(field))).toEqual([]);
    expect(COUNT_TOKENS_FIELDS.has('max_tokens')).toBe(false);
  });
});

describe('the cost of server tool calls', () => {
  const price = { input: 3, output: 15 };
  it('adds each call at its per-call price as its own part, and the parts still sum to the cost', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), fc.nat(50), fc.nat(50), (prompt, completion, searches, fetches) => {
        const usage = { prompt, completion, reasoning: 0, cached: 0, serverToolCalls: { web_search: searches, web_fetch: fetches, unpriced: 3 } };
        const toolPrice = (tool: string) => ({ web_search: 0.01, web_fetch: 0.002 })[tool as 'web_search'];
        const parts = costPartsNanoUsd(price, usage, toolPrice);
        expect(parts.serverTools).toBe(searches * 10_000_000 + fetches * 2_000_000);
        const sum = parts.input + parts.cacheRead + parts.cacheWrite + parts.cacheWrite1h + parts.output + parts.reasoning + parts.serverTools;
        expect(sum).toBe(costNanoUsd(price, usage, toolPrice));
        expect(costNanoUsd(price, usage)).toBe(costNanoUsd(price, { ...usage, serverToolCalls: {} }));
      }),
    );
  });
});
