/**
 * Assembles the h3 app from the dependencies: the route table and the /v1 pipeline stages, in order
 * (request id → edge User-Agent rule → authentication → body → quota → rate limit → route).
 * No business rules here.
 */
import { createApp, createRouter, eventHandler, setResponseHeader, type App, type H3Event } from 'h3';
import { RouterError } from '../core/errors.js';
import { renderCatalogPage } from './routes/catalog-page.js';
import { createChatCompletionsRoute } from './routes/chat-completions.js';
import { createModelRoute, createModelsRoute } from './routes/models.js';
import { buildModelCatalog, buildPricing } from './routes/public-metadata.js';
import { createResponsesRoute } from './routes/responses.js';
import { createStatusRoute } from './routes/status.js';
import type { RouterDeps } from './router-deps.js';
import { chatRequestSchema, responsesRequestSchema } from './request-schemas.js';
import { sendRouterError } from './send-error.js';
import { createAuthenticateStage } from './stages/authenticate.js';
import { createEdgeUserAgentStage } from './stages/edge-user-agent.js';
import { createQuotaPeekStage, createQuotaStage } from './stages/quota.js';
import { createRateLimitStage } from './stages/rate-limit.js';
import { createReadJsonBodyStage } from './stages/read-json-body.js';
import { assignRequestId } from './stages/request-id.js';
import type { Stage } from './stages/stage.js';
import { createV1Handler } from './v1-pipeline.js';

const PUBLIC_CACHE = 'public, max-age=300';

export function createRouterApp(deps: RouterDeps): App {
  const { config } = deps;
  const edge = createEdgeUserAgentStage(config.server.edge);
  const authenticate = createAuthenticateStage(deps.keys);
  const rateLimit = createRateLimitStage(deps);
  const body = (schema: object) => createReadJsonBodyStage({ limitBytes: config.server.bodyLimitBytes, schema, routes: deps.routes });
  const modelTraffic = (schema: object): Stage[] => [edge, authenticate, body(schema), createQuotaStage(deps), rateLimit];
  const otherV1: Stage[] = [edge, authenticate, createQuotaPeekStage(deps), rateLimit];

  const pricing = JSON.stringify(buildPricing(config, deps.managedAccess));
  const catalog = JSON.stringify(buildModelCatalog(config));
  const families = new Map(config.catalog.families.map((family) => [family.id, renderCatalogPage(config, family)]));
  const publicJson = (json: string) =>
    eventHandler((event) => {
      edge(event);
      setResponseHeader(event, 'cache-control', PUBLIC_CACHE);
      setResponseHeader(event, 'content-type', 'application/json');
      return json;
    });

  const router = createRouter()
    .get('/v1/models', createV1Handler(deps, otherV1, createModelsRoute(deps)))
    .get('/v1/models/**', createV1Handler(deps, otherV1, createModelRoute(deps)))
    .post('/v1/chat/completions', createV1Handler(deps, modelTraffic(chatRequestSchema), createChatCompletionsRoute(deps), 'model'))
    .post('/v1/responses', createV1Handler(deps, modelTraffic(responsesRequestSchema), createResponsesRoute(deps), 'model'))
    .use('/v1/**', createV1Handler(deps, otherV1, unknownV1Endpoint))
    .use('/v1', createV1Handler(deps, otherV1, unknownV1Endpoint))
    .get('/pricing', publicJson(pricing))
    .get('/model-catalog', publicJson(catalog))
    .get(
      '/model-catalog/:family',
      eventHandler((event) => {
        edge(event);
        const page = families.get(event.context.params?.family ?? '');
        if (!page) throw new RouterError('not_found', 'No such route family. See /model-catalog for the list.');
        setResponseHeader(event, 'cache-control', PUBLIC_CACHE);
        setResponseHeader(event, 'content-type', 'text/html; charset=utf-8');
        return page;
      }),
    )
    .get('/status', createStatusRoute(deps))
    .get('/healthz', eventHandler(() => ({ status: 'ok' })))
    .get('/readyz', eventHandler((event) => readiness(event, deps)));

  const app = createApp({
    onRequest: (event) => void assignRequestId(event, deps.clock.now()),
    onError: (error, event) => {
      const cause = (error as { cause?: unknown }).cause;
      const routerError = cause instanceof RouterError ? cause : error instanceof RouterError ? error : undefined;
      if (!routerError) deps.logger.error(`[${event.context.router?.requestId}] unhandled error: ${error.message}`);
      event.node.res.end(sendRouterError(event, routerError ?? new RouterError('internal_error', 'The router failed unexpectedly.'), config.server));
    },
  });
  app.use(router);
  app.use(eventHandler(() => notFound()));
  return app;
}

/** Methods of the /v1 endpoints, so a wrong method gets 405 with Allow rather than 404. */
const V1_METHODS: Readonly<Record<string, string>> = { '/v1/chat/completions': 'POST', '/v1/responses': 'POST', '/v1/models': 'GET' };

async function unknownV1Endpoint(event: H3Event): Promise<never> {
  const allowed = V1_METHODS[event.path.split('?')[0]!.replace(/\/+$/, '')];
  if (allowed) {
    throw new RouterError('method_not_allowed', `${event.method} is not supported here; use ${allowed}.`, { headers: { allow: allowed } });
  }
  notFound();
}

function notFound(): never {
  throw new RouterError('not_found', 'No such endpoint. The API lives under /v1 (chat/completions, responses, models).');
}

async function readiness(event: H3Event, deps: RouterDeps) {
  const rateLimiter = deps.rateLimiter.status();
  const quota = deps.quota.status();
  if (deps.drain.draining) {
    // Shutting down: a load balancer should stop sending at once.
    event.node.res.statusCode = 503;
    return { status: 'draining', store: deps.store.kind, quota, rateLimiter };
  }
  try {
    await deps.store.ping();
    return { status: 'ready', store: deps.store.kind, quota, rateLimiter };
  } catch {
    event.node.res.statusCode = 503;
    return { status: 'unavailable', store: deps.store.kind, quota, rateLimiter };
  }
}
