/**
 * Assembles the API from the dependencies: the route table, each /v1 route behind its admission list
 * (stages/admission-lists.ts: edge User-Agent rule → authentication → body → quota → in flight → rate
 * limit → the key's own caps → route), the app hooks and the JSON 404. runtime/create-server-app.ts
 * mounts them with the account app in front.
 * No business rules here.
 */
import { COUNT_TOKENS_FIELDS, MESSAGES_FIELDS, RESPONSES_FIELDS } from '../formats/top-level-fields.js';
import { allRules, onlyListedFields } from './listed-fields.js';
import { createRouter, eventHandler, setResponseHeader, type AppOptions, type EventHandler, type H3Event, type Router } from 'h3';
import { RouterError } from '../core/errors.js';
import { rejectStatefulFields } from '../translators/responses/reject-stateful-fields.js';
import { createChatCompletionsRoute } from './routes/chat-completions.js';
import { createModelRoute, createModelsRoute } from './routes/models.js';
import { createGenerationRoute } from './routes/generation.js';
import { buildModelCatalog, buildPricing } from './routes/public-metadata.js';
import { createResponsesRoute } from './routes/responses.js';
import { createMessagesRoute } from './routes/messages.js';
import { countTokensRequestSchema, messagesRequestSchema } from './messages-request-schema.js';
import { createCountTokensRoute } from './routes/count-tokens.js';
import { createEmbeddingsRoute, createRerankRoute } from './routes/embeddings.js';
import { sendMessagesError } from './send-messages-error.js';
import { createMetricsRoute } from './routes/metrics.js';
import { createStatusRoute } from './routes/status.js';
import { createCreditsRoute, createKeyInfoRoute } from './routes/key-info.js';
import { createKeysApiRoutes } from './routes/keys-api.js';
import { createPresetsApiRoutes } from './routes/presets-api.js';
import type { RouterDeps } from './router-deps.js';
import { chatRequestSchema, embeddingsRequestSchema, EMBEDDINGS_FIELDS, RERANK_FIELDS, rerankRequestSchema, responsesRequestSchema } from './request-schemas.js';
import { readEmbeddingCall, readRerankCall } from './embeddings-request.js';
import type { EmbeddingsRequest, RerankRequest } from '../formats/embeddings.js';
import { sendRouterError } from './send-error.js';
import { createAdmissionLists } from './stages/admission-lists.js';
import { assignRequestId } from './stages/request-id.js';
import { createV1Handler } from './pipeline.js';
import { withResponseCache } from './cached-route.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { recordRoutes, type ServedRoute } from './openapi/served-routes.js';
import { routerVersion } from '../usage/support-bundle.js';

const PUBLIC_CACHE = 'public, max-age=300';

export interface ApiRouter {
  /** The h3 app's hooks: the request id on every request, errors answered in the API's JSON shape. */
  options: AppOptions;
  router: Router;
  /** The last handler: what nothing claimed gets the API's JSON 404. */
  notFound: EventHandler;
  /** Every method and path the router serves (the OpenAPI contract test checks each is documented). */
  routes: readonly ServedRoute[];
}

export function createApiRouter(deps: RouterDeps): ApiRouter {
  const { config } = deps;
  const { modelTraffic, countTokens, otherV1, management, edge } = createAdmissionLists(deps);
  const keysApi = createKeysApiRoutes(deps);
  const keyInfo = createV1Handler(deps, otherV1, createKeyInfoRoute(deps));
  const credits = createV1Handler(deps, otherV1, createCreditsRoute(deps));
  const keyCollection = { create: createV1Handler(deps, management, keysApi.create), list: createV1Handler(deps, management, keysApi.list) };
  const oneKey = {
    read: createV1Handler(deps, management, keysApi.read),
    update: createV1Handler(deps, management, keysApi.update),
    remove: createV1Handler(deps, management, keysApi.remove),
    rotate: createV1Handler(deps, management, keysApi.rotate),
  };
  // Presets: any key of the organization reads them, its management keys change them (routes/presets-api.ts).
  const presetsApi = createPresetsApiRoutes(deps);
  const presets = {
    list: createV1Handler(deps, otherV1, presetsApi.list),
    read: createV1Handler(deps, otherV1, presetsApi.read),
    versions: createV1Handler(deps, otherV1, presetsApi.versions),
    version: createV1Handler(deps, otherV1, presetsApi.version),
    create: createV1Handler(deps, management, presetsApi.create),
    update: createV1Handler(deps, management, presetsApi.update),
    remove: createV1Handler(deps, management, presetsApi.remove),
    fromChat: createV1Handler(deps, management, presetsApi.fromRequest('chat')),
    fromResponses: createV1Handler(deps, management, presetsApi.fromRequest('responses')),
    fromMessages: createV1Handler(deps, management, presetsApi.fromRequest('messages')),
  };

  const pricing = JSON.stringify(buildPricing(config, deps.managedAccess));
  const catalog = JSON.stringify(buildModelCatalog(config));
  // Generated from the endpoint registry and the request schemas (http/openapi/), once.
  const openApi = JSON.stringify(buildOpenApiDocument({ baseUrl: config.server.baseUrl, version: routerVersion() }));
  const publicJson = (json: string) =>
    eventHandler((event) => {
      edge(event);
      setResponseHeader(event, 'cache-control', PUBLIC_CACHE);
      setResponseHeader(event, 'content-type', 'application/json');
      return json;
    });

  const { router, routes } = recordRoutes(createRouter());
  router
    .get('/v1/models', createV1Handler(deps, otherV1, createModelsRoute(deps)))
    .get('/v1/models/**', createV1Handler(deps, otherV1, createModelRoute(deps)))
    .get('/v1/generation', createV1Handler(deps, otherV1, createGenerationRoute(deps)))
    .post('/v1/chat/completions', createV1Handler(deps, modelTraffic(chatRequestSchema, { presets: 'chat' }), withResponseCache(deps, createChatCompletionsRoute(deps)), 'model'))
    .post('/v1/responses', createV1Handler(deps, modelTraffic(responsesRequestSchema, { presets: 'responses', refuse: allRules(onlyListedFields(RESPONSES_FIELDS, 'Responses'), rejectStatefulFields) }), withResponseCache(deps, createResponsesRoute(deps)), 'model'))
    .post('/v1/messages', createV1Handler(deps, modelTraffic(messagesRequestSchema, { presets: 'messages', modelAliases: true, refuse: onlyListedFields(MESSAGES_FIELDS, 'Messages') }), withResponseCache(deps, createMessagesRoute(deps)), 'model', sendMessagesError))
    .post('/v1/embeddings', createV1Handler(deps, modelTraffic(embeddingsRequestSchema, { refuse: allRules(onlyListedFields(EMBEDDINGS_FIELDS, 'embeddings'), (body) => void readEmbeddingCall(body as EmbeddingsRequest)) }), withResponseCache(deps, createEmbeddingsRoute(deps)), 'model'))
    .post('/v1/rerank', createV1Handler(deps, modelTraffic(rerankRequestSchema, { refuse: allRules(onlyListedFields(RERANK_FIELDS, 'rerank'), (body) => void readRerankCall(body as RerankRequest)) }), withResponseCache(deps, createRerankRoute(deps)), 'model'))
    .post('/v1/messages/count_tokens', createV1Handler(deps, countTokens(countTokensRequestSchema, onlyListedFields(COUNT_TOKENS_FIELDS, 'count_tokens')), createCountTokensRoute(deps), 'other', sendMessagesError));
  // The key and preset APIs under our /v1 and OpenRouter's /api/v1 paths (routes/key-info.ts, keys-api.ts, presets-api.ts).
  for (const base of ['/v1', '/api/v1']) {
    router
      .get(`${base}/key`, keyInfo)
      .get(`${base}/credits`, credits)
      .post(`${base}/keys`, keyCollection.create)
      .get(`${base}/keys`, keyCollection.list)
      .get(`${base}/keys/:hash`, oneKey.read)
      .patch(`${base}/keys/:hash`, oneKey.update)
      .delete(`${base}/keys/:hash`, oneKey.remove)
      .post(`${base}/keys/:hash/rotate`, oneKey.rotate)
      .get(`${base}/openapi.json`, publicJson(openApi))
      .get(`${base}/presets`, presets.list)
      .post(`${base}/presets`, presets.create)
      .get(`${base}/presets/:slug`, presets.read)
      .patch(`${base}/presets/:slug`, presets.update)
      .delete(`${base}/presets/:slug`, presets.remove)
      .get(`${base}/presets/:slug/versions`, presets.versions)
      .get(`${base}/presets/:slug/versions/:version`, presets.version)
      .post(`${base}/presets/:slug/chat/completions`, presets.fromChat)
      .post(`${base}/presets/:slug/responses`, presets.fromResponses)
      .post(`${base}/presets/:slug/messages`, presets.fromMessages);
  }
  router
    .use('/v1/**', createV1Handler(deps, otherV1, unknownV1Endpoint))
    .use('/v1', createV1Handler(deps, otherV1, unknownV1Endpoint))
    .get('/pricing', publicJson(pricing))
    .get('/model-catalog', publicJson(catalog))
    .get('/status', createStatusRoute(deps))
    .get('/healthz', eventHandler(() => ({ status: 'ok' })))
    .get('/readyz', eventHandler((event) => readiness(event, deps)));
  if (deps.metrics) router.get('/metrics', createMetricsRoute(deps.metrics, config.server.metrics.token));

  const options: AppOptions = {
    onRequest: (event) => void assignRequestId(event, deps.clock.now()),
    onError: (error, event) => {
      const cause = (error as { cause?: unknown }).cause;
      const routerError = cause instanceof RouterError ? cause : error instanceof RouterError ? error : undefined;
      if (!routerError) deps.logger.error(`[${event.context.router?.requestId}] unhandled error: ${error.message}`);
      event.node.res.end(sendRouterError(event, routerError ?? new RouterError('internal_error', 'The router failed unexpectedly.'), config.server));
    },
  };
  return { options, router, notFound: eventHandler(() => notFound()), routes };
}

/** Methods of the /v1 endpoints, so a wrong method gets 405 with Allow rather than 404. */
const V1_METHODS: ReadonlyMap<string, string> = new Map([
  ['/v1/chat/completions', 'POST'],
  ['/v1/responses', 'POST'],
  ['/v1/messages', 'POST'],
  ['/v1/messages/count_tokens', 'POST'],
  ['/v1/embeddings', 'POST'],
  ['/v1/rerank', 'POST'],
  ['/v1/models', 'GET'],
  ['/v1/generation', 'GET'],
  ['/v1/key', 'GET'],
  ['/v1/credits', 'GET'],
  ['/v1/keys', 'GET, POST'],
  ['/v1/openapi.json', 'GET'],
  ['/v1/presets', 'GET, POST'],
]);

async function unknownV1Endpoint(event: H3Event): Promise<never> {
  const allowed = V1_METHODS.get((event.path.split('?')[0] ?? '').replace(/\/+$/, ''));
  if (allowed) {
    throw new RouterError('method_not_allowed', `${event.method} is not supported here; use ${allowed}.`, { headers: { allow: allowed } });
  }
  notFound();
}

function notFound(): never {
  throw new RouterError('not_found', 'No such endpoint. The API lives under /v1 (chat/completions, responses, messages, embeddings, rerank, models).');
}

async function readiness(event: H3Event, deps: RouterDeps) {
  const rateLimiter = deps.rateLimiter.status();
  const concurrency = deps.concurrency.status();
  const quota = deps.quota.status();
  // A ledger that is behind or failing still serves traffic (BYOK); it is reported, not a reason to take the instance out.
  const ledger = deps.usage.ledger?.status() ?? { state: 'off' as const };
  if (deps.drain.draining) {
    // Shutting down: a load balancer should stop sending at once.
    event.node.res.statusCode = 503;
    return { status: 'draining', store: deps.store.kind, quota, rateLimiter, concurrency, ledger };
  }
  try {
    await deps.store.ping();
    return { status: 'ready', store: deps.store.kind, quota, rateLimiter, concurrency, ledger };
  } catch {
    event.node.res.statusCode = 503;
    return { status: 'unavailable', store: deps.store.kind, quota, rateLimiter, concurrency, ledger };
  }
}
