/**
 * The response cache around a model route (docs/caching.md): `withResponseCache(deps, route)` is the
 * one call a route needs. It runs after admission (so a hit has passed authentication, the monthly
 * quota, the in-flight cap and the per-minute limit like any request), looks the request up, and
 * either replays the stored answer (a HIT: a new request id, cost 0, the original's body and event
 * stream byte for byte but for `usage.cost`) or serves it through the route and stores what the client
 * got when it ended well (a 200, no in-stream error, an upstream served it, not fusion, not an empty
 * answer that zero-completion insurance made free).
 */
import type { ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import { responseCacheKey } from '../core/response-cache-key.js';
import type { CachedAnswer } from '../stores/response-cache-store.js';
import { costNanoUsd } from '../usage/model-prices.js';
import { isInsured } from '../usage/zero-completion-insurance.js';
import { authorizeRoute } from './authorize-route.js';
import { setLimitHeaders } from './limit-headers.js';
import type { RouteHandler } from './pipeline.js';
import type { AdmittedRequest, RequestState, ServingRecord } from './request-context.js';
import { applyAccountPolicy, cacheDecision, type CacheDecision } from './response-cache-policy.js';
import type { RouterDeps } from './router-deps.js';
import { zeroCost } from './zero-cost.js';

/** Response headers of a stored answer replayed on a hit (who served the original). */
const REPLAYED_HEADERS = ['x-router-upstream', 'x-router-model'] as const;

export function withResponseCache<Admitted extends AdmittedRequest>(deps: RouterDeps, handle: RouteHandler<Admitted>): RouteHandler<Admitted> {
  const bounds = deps.config.server.responseCache;
  return async (event, request, serving) => {
    // The body as the client sent it: the preferences stage took `provider` off it, but it is part of the request.
    const stated = (request as unknown as RequestState).statedProvider;
    const body = stated === undefined ? request.body : { ...request.body, provider: stated };
    let decision = cacheDecision(event.node.req.headers, request.route, body, bounds.defaultTtlSeconds);
    if (decision.use) decision = applyAccountPolicy(decision, await deps.responseCache.policyOf(request.caller.accountId), body);
    const res = event.node.res;
    if (!decision.use) {
      if (decision.bypassed) setStatusHeaders(res, 'BYPASS');
      return handle(event, request, serving);
    }
    const accountId = request.caller.accountId;
    const stream = body.stream === true;
    const key = responseCacheKey({ accountId, endpoint: endpointPath(event.path), routeId: request.route?.id ?? String(body.model), stream, body });
    const store = deps.responseCache.store;
    if (decision.clear) await store.delete(key, accountId);
    else {
      const hit = await store.get(key, accountId);
      if (hit) return replay(event, request, serving, deps, hit);
    }
    setStatusHeaders(res, 'MISS');
    res.setHeader('x-openrouter-cache-ttl', String(decision.ttlSeconds));
    recordForCache(res, bounds.maxEntryBytes, (text) => {
      const answer = answerToStore(res, request, serving, deps, decision, text);
      if (answer) void store.set(key, answer);
    });
    return handle(event, request, serving);
  };
}

/** The route's path (a registered /v1 route, so bounded), without query or trailing slash: one entry per endpoint, a new endpoint included. */
function endpointPath(path: string): string {
  return (path.split('?')[0] ?? path).replace(/\/+$/, '');
}

function setStatusHeaders(res: ServerResponse, status: 'HIT' | 'MISS' | 'BYPASS'): void {
  res.setHeader('x-router-cache-status', status);
  res.setHeader('x-openrouter-cache-status', status);
}

/**
 * Keeps what the route writes (up to `maxBytes`; past it the answer is not stored) and hands the text
 * over once the response has finished: `finish` is not emitted for a response the client left.
 */
function recordForCache(res: ServerResponse, maxBytes: number, finished: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let tooLarge = false;
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (tooLarge || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
    bytes += buffer.length;
    if (bytes > maxBytes) {
      tooLarge = true;
      chunks.length = 0;
      return;
    }
    chunks.push(buffer);
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, ...args: Parameters<typeof write>) {
    keep(args[0], args[1]);
    return write.apply(this, args);
  } as typeof write;
  res.end = function (this: ServerResponse, ...args: Parameters<typeof end>) {
    keep(args[0], args[1]);
    return end.apply(this, args);
  } as typeof end;
  res.once('finish', () => {
    if (!tooLarge) finished(Buffer.concat(chunks).toString('utf8'));
  });
}

/** The answer as it is stored, or undefined when it must not be: only whole, successful, upstream-served answers. */
function answerToStore(res: ServerResponse, request: AdmittedRequest, serving: ServingRecord, deps: RouterDeps, decision: CacheDecision & { use: true }, text: string): CachedAnswer | undefined {
  const served = serving.served;
  if (res.statusCode !== 200 || serving.errorCode !== undefined || !served || serving.fusion || text.length === 0) return undefined;
  // An answer that gave nothing (zero-completion insurance: empty, no finish) is not worth replaying to the next caller.
  const ending = { served: true, generates: (request.route?.kind ?? 'chat') === 'chat', completionTokens: serving.usage?.completion, finishReason: serving.finishReason, errorCode: serving.errorCode };
  if (isInsured(ending)) return undefined;
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.getHeader(name);
    if (typeof value === 'string') headers[name] = value;
  }
  const usage = serving.usage ?? null;
  const price = deps.usage.prices.priceOf(served.providerId, served.upstreamModel);
  const cost = usage && price ? costNanoUsd(price, usage, (tool) => deps.usage.prices.serverToolPriceOf(served.providerId, tool)) : null;
  return {
    accountId: request.caller.accountId,
    originalRequestId: request.requestId,
    storedAt: deps.clock.now(),
    ttlMs: decision.ttlSeconds * 1000,
    contentType: String(res.getHeader('content-type') ?? 'application/json'),
    headers,
    body: text,
    servedBy: { providerId: served.providerId, upstreamModel: served.upstreamModel },
    usage,
    costNanoUsd: cost,
    finishReason: serving.finishReason ?? null,
  };
}

/**
 * A hit: the plan must still allow the profile (authorizeRoute throws as for any request); the monthly
 * count goes back when the plan says hits do not count; the answer is written whole, as JSON or as
 * the original event stream, with its cost zeroed.
 */
async function replay(event: H3Event, request: AdmittedRequest, serving: ServingRecord, deps: RouterDeps, hit: CachedAnswer): Promise<unknown> {
  authorizeRoute(request, deps.plans, deps.config.catalog.concreteModels);
  const now = deps.clock.now();
  const res = event.node.res;
  if (request.plan?.cacheHitsCountAgainstQuota === false) {
    const state = request as unknown as RequestState;
    const admitted = state.admitted;
    state.admitted = undefined;
    await admitted?.refund().then(
      () => {
        request.quota.used = Math.max(0, request.quota.used - (admitted?.weight ?? 0));
      },
      () => {},
    );
    setLimitHeaders(res, request, now);
  }
  serving.cacheHit = { originalRequestId: hit.originalRequestId, savedNanoUsd: hit.costNanoUsd };
  serving.usage = null;
  serving.finishReason = hit.finishReason ?? undefined;
  serving.firstByteAt = now;
  const ageSeconds = String(Math.max(0, Math.floor((now - hit.storedAt) / 1000)));
  setStatusHeaders(res, 'HIT');
  res.setHeader('x-router-cache-age', ageSeconds);
  res.setHeader('x-openrouter-cache-age', ageSeconds);
  res.setHeader('x-openrouter-cache-ttl', String(Math.max(0, Math.ceil((hit.storedAt + hit.ttlMs - now) / 1000))));
  res.setHeader('x-router-cache-original-request-id', hit.originalRequestId);
  for (const [name, value] of Object.entries(hit.headers)) res.setHeader(name, value);
  const body = zeroCost(hit.body, hit.contentType);
  res.setHeader('content-type', hit.contentType);
  if (hit.contentType.startsWith('text/event-stream')) {
    res.setHeader('cache-control', 'no-cache');
    res.statusCode = 200;
    res.end(body);
    return undefined;
  }
  return body;
}
