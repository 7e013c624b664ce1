/** Who uses the response cache (headers, route profile, zdr, the account's rule) and how a hit's cost reads. */
import { describe, expect, it } from 'vitest';
import type { RouteProfileConfig } from '../../../src/config/types.js';
import { isRouterError } from '../../../src/core/errors.js';
import { applyAccountPolicy, cacheDecision } from '../../../src/http/response-cache-policy.js';
import { zeroCost } from '../../../src/http/zero-cost.js';

const route = (responseCache?: { enabled: boolean; ttlSeconds?: number }) => ({ id: 'router/eval', ...(responseCache ? { responseCache } : {}) }) as unknown as RouteProfileConfig;
const body = { model: 'router/eval', messages: [] };

describe('cacheDecision', () => {
  it('is off unless a header or the profile asks; a request may turn a profile off', () => {
    expect(cacheDecision({}, route(), body, 300)).toEqual({ use: false, bypassed: undefined });
    expect(cacheDecision({ 'x-router-cache': 'true' }, route(), body, 300)).toEqual({ use: true, ttlSeconds: 300, clear: false });
    expect(cacheDecision({ 'x-openrouter-cache': '1', 'x-openrouter-cache-ttl': '60', 'x-openrouter-cache-clear': 'true' }, route(), body, 300)).toEqual({ use: true, ttlSeconds: 60, clear: true });
    expect(cacheDecision({}, route({ enabled: true, ttlSeconds: 3600 }), body, 300)).toEqual({ use: true, ttlSeconds: 3600, clear: false });
    expect(cacheDecision({ 'x-router-cache': 'false' }, route({ enabled: true }), body, 300).use).toBe(false);
  });

  it('never caches a zdr request, and refuses bad header values with invalid_request naming the header', () => {
    expect(cacheDecision({ 'x-router-cache': 'true' }, route(), { ...body, provider: { zdr: true } }, 300)).toEqual({ use: false, bypassed: 'zdr' });
    for (const headers of [{ 'x-router-cache': 'yes' }, { 'x-router-cache': 'true', 'x-router-cache-ttl': '0' }, { 'x-router-cache': 'true', 'x-openrouter-cache-ttl': '86401' }, { 'x-router-cache': 'true', 'x-router-cache-ttl': '1e3' }]) {
      let thrown: unknown;
      try {
        cacheDecision(headers, route(), body, 300);
      } catch (error) {
        thrown = error;
      }
      expect(isRouterError(thrown) && thrown.code === 'invalid_request' && thrown.param?.startsWith('x-')).toBe(true);
    }
  });

  it("applies the account's rule: never, or no body naming an end user", () => {
    const on = { use: true as const, ttlSeconds: 300, clear: false };
    expect(applyAccountPolicy(on, 'allow', { ...body, user: 'u1' })).toBe(on);
    expect(applyAccountPolicy(on, 'never', body)).toEqual({ use: false, bypassed: 'account_policy' });
    for (const named of [{ user: 'u1' }, { safety_identifier: 'h' }, { metadata: { user_id: 'u1' } }]) {
      expect(applyAccountPolicy(on, 'no_user_data', { ...body, ...named })).toEqual({ use: false, bypassed: 'private_user' });
    }
    expect(applyAccountPolicy(on, 'no_user_data', { ...body, metadata: { other: 1 } })).toBe(on);
  });
});

describe('zeroCost', () => {
  it('zeroes usage.cost and cost_details in JSON and in each data line of a stream, and nothing else', () => {
    const json = JSON.stringify({ id: 'x', usage: { prompt_tokens: 3, cost: 0.5, cost_details: { input: 0.2, output: 0.3 } } });
    expect(JSON.parse(zeroCost(json, 'application/json'))).toEqual({ id: 'x', usage: { prompt_tokens: 3, cost: 0, cost_details: { input: 0, output: 0 } } });
    const stream = `event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"cost":0.1}}}\n\ndata: [DONE]\n\n`;
    expect(zeroCost(stream, 'text/event-stream')).toBe(`event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"cost":0}}}\n\ndata: [DONE]\n\n`);
    const costless = 'data: {"choices":[]}\n\n';
    expect(zeroCost(costless, 'text/event-stream')).toBe(costless);
  });
});
