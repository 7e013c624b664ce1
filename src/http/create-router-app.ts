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
import { sendMessagesError } from './send-messages-error.js';
import { createMetricsRoute } from './routes/metrics.js';
import { createStatusRoute } from './routes/status.js';
import type { RouterDeps } from './router-deps.js';
import { chatRequestSchema, responsesRequestSchema } from './request-schemas.js';
import { sendRouterError } from './send-error.js';
import { createAdmissionLists } from './stages/admission-lists.js';
import { assignRequestId } from './stages/request-id.js';
import { createV1Handler } from './pipeline.js';

const PUBLIC_CACHE = 'public, max-age=300';

export interface ApiRouter {
  /** The h3 app's hooks: the request id on every request, errors answered in the API's JSON shape. */
  options: AppOptions;
  router: Router;
  /** The last handler: what nothing claimed gets the API's JSON 404. */
  notFound: EventHandler;
}

export function createApiRouter(deps: RouterDeps): ApiRouter {
  const { config } = deps;
  const { modelTraffic, countTokens, otherV1, edge } = createAdmissionLists(deps);

  const pricing = JSON.stringify(buildPricing(config, deps.managedAccess));
  const catalog = JSON.stringify(buildModelCatalog(config));
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
    .get('/v1/generation', createV1Handler(deps, otherV1, createGenerationRoute(deps)))
    .post('/v1/chat/completions', createV1Handler(deps, modelTraffic(chatRequestSchema), createChatCompletionsRoute(deps), 'model'))
    .post('/v1/responses', createV1Handler(deps, modelTraffic(responsesRequestSchema, { refuse: allRules(onlyListedFields(RESPONSES_FIELDS, 'Responses'), rejectStatefulFields) }), createResponsesRoute(deps), 'model'))
    .post('/v1/messages', createV1Handler(deps, modelTraffic(messagesRequestSchema, { modelAliases: true, refuse: onlyListedFields(MESSAGES_FIELDS, 'Messages') }), createMessagesRoute(deps), 'model', sendMessagesError))
    .post('/v1/messages/count_tokens', createV1Handler(deps, countTokens(countTokensRequestSchema, onlyListedFields(COUNT_TOKENS_FIELDS, 'count_tokens')), createCountTokensRoute(deps), 'other', sendMessagesError))
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
  return { options, router, notFound: eventHandler(() => notFound()) };
}

/** Methods of the /v1 endpoints, so a wrong method gets 405 with Allow rather than 404. */
const V1_METHODS: ReadonlyMap<string, string> = new Map([
  ['/v1/chat/completions', 'POST'],
  ['/v1/responses', 'POST'],
  ['/v1/messages', 'POST'],
  ['/v1/messages/count_tokens', 'POST'],
  ['/v1/models', 'GET'],
  ['/v1/generation', 'GET'],
]);

async function unknownV1Endpoint(event: H3Event): Promise<never> {
  const allowed = V1_METHODS.get((event.path.split('?')[0] ?? '').replace(/\/+$/, ''));
  if (allowed) {
    throw new RouterError('method_not_allowed', `${event.method} is not supported here; use ${allowed}.`, { headers: { allow: allowed } });
  }
  notFound();
}

function notFound(): never {
  throw new RouterError('not_found', 'No such endpoint. The API lives under /v1 (chat/completions, responses, messages, models).');
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
