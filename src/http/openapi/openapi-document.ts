/**
 * The OpenAPI 3.1 document of the public API (GET /v1/openapi.json), generated from the endpoint
 * registry (public-endpoints.ts) and the TypeBox schemas the requests are validated with: never kept by
 * hand. Errors carry the contract's body (send-error.ts; Anthropic's on /v1/messages), each status listing
 * the codes (core/errors.ts) the endpoint may answer with. Built once at start: it depends only on the code
 * and the public base URL.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_TABLE, type ErrorCode } from '../../core/errors.js';
import { PUBLIC_ENDPOINTS, type PublicEndpoint } from './public-endpoints.js';

type Json = Record<string, unknown>;

/** The contract's error body (send-error.ts), guidance fields beside the four always present. */
const errorSchema = Type.Object(
  {
    error: Type.Object(
      {
        message: Type.String(),
        type: Type.String({ description: 'The error’s class (authentication_error, invalid_request_error, rate_limit_error, …).' }),
        code: Type.Union([Type.String(), Type.Null()], { description: 'The contract’s code (docs/api.md), stable across releases.' }),
        param: Type.Union([Type.String(), Type.Null()], { description: 'The request field at fault, when one is.' }),
      },
      { additionalProperties: true, description: 'Guidance fields (docsUrl, upgradeUrl, …) follow the code’s row of the error table.' },
    ),
  },
  { additionalProperties: false },
);

/** Anthropic's error body, as /v1/messages answers (send-messages-error.ts). */
const anthropicErrorSchema = Type.Object({
  type: Type.Literal('error'),
  error: Type.Object({ type: Type.String(), message: Type.String() }, { additionalProperties: true }),
});

/** Every authenticated request may be refused by these before its own rules apply. */
const AUTHENTICATION: readonly ErrorCode[] = ['missing_api_key', 'malformed_api_key', 'invalid_api_key', 'revoked_api_key', 'disabled_api_key', 'inactive_account'];
const ALWAYS: readonly ErrorCode[] = ['store_unavailable', 'server_shutting_down', 'internal_error'];

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Json;
  servers: Json[];
  paths: Record<string, Record<string, Json>>;
  components: Json;
  tags: Json[];
}

export function buildOpenApiDocument(options: { baseUrl: string; version: string }, endpoints: readonly PublicEndpoint[] = PUBLIC_ENDPOINTS): OpenApiDocument {
  const paths: Record<string, Record<string, Json>> = {};
  for (const endpoint of endpoints) {
    for (const path of pathsOf(endpoint)) {
      const item = (paths[path] ??= {});
      item[endpoint.method] = operationOf(endpoint, path !== endpoint.path);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'LLM router API',
      version: options.version,
      description: 'One OpenAI-compatible endpoint over route profiles with failover, plans and quotas; Anthropic’s Messages API and OpenRouter’s key API beside it. Generated from the schemas that validate each request.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.baseUrl }],
    tags: [
      { name: 'Models', description: 'Model traffic and the model list.' },
      { name: 'Usage', description: 'Receipts of requests.' },
      { name: 'Keys', description: 'The calling key, the account’s credits, and keys managed with a management key.' },
      { name: 'Presets', description: 'Saved model, provider preferences, system prompt and parameters, used as `@preset/<slug>`; read with any key, changed with a management key.' },
      { name: 'Meta', description: 'This document, pricing, the catalog, status and health.' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An inference key (`sk_router_…`) from the account app or `router keys create`.' },
        managementKey: { type: 'http', scheme: 'bearer', description: 'A management key: manages keys, never calls a model.' },
      },
      schemas: { Error: plain(errorSchema), AnthropicError: plain(anthropicErrorSchema) },
    },
  };
}

/** The endpoint's path, and OpenRouter's /api/v1 one when it has it. */
function pathsOf(endpoint: PublicEndpoint): string[] {
  return endpoint.openRouterAlias ? [endpoint.path, endpoint.path.replace(/^\/v1\//, '/api/v1/')] : [endpoint.path];
}

function operationOf(endpoint: PublicEndpoint, alias: boolean): Json {
  const operation: Json = {
    operationId: alias ? `${endpoint.operationId}OpenRouter` : endpoint.operationId,
    summary: endpoint.summary,
    tags: [endpoint.tag],
    security: endpoint.auth === 'none' ? [] : [endpoint.auth === 'management' ? { managementKey: [] } : { bearer: [] }],
    responses: responsesOf(endpoint),
  };
  if (endpoint.parameters?.length) operation.parameters = endpoint.parameters.map((parameter) => ({ ...parameter }));
  if (endpoint.requestSchema) operation.requestBody = { required: true, content: { 'application/json': { schema: plain(endpoint.requestSchema) } } };
  return operation;
}

function responsesOf(endpoint: PublicEndpoint): Json {
  const { success } = endpoint;
  const content: Json = { 'application/json': { schema: { type: 'object' } } };
  if (success.streams) content['text/event-stream'] = { schema: { type: 'string', description: 'Server-sent events.' } };
  const responses: Json = { [String(success.status)]: { description: success.description, content } };
  const codes = endpoint.auth === 'none' ? endpoint.errors : [...AUTHENTICATION, ...endpoint.errors, ...ALWAYS];
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of codes) {
    const { status } = ERROR_TABLE[code];
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)!.add(code);
  }
  const schemaRef = { $ref: endpoint.anthropicErrors ? '#/components/schemas/AnthropicError' : '#/components/schemas/Error' };
  for (const [status, inStatus] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = { description: `Error codes: ${[...inStatus].join(', ')}.`, content: { 'application/json': { schema: schemaRef } } };
  }
  return responses;
}

/** The schema as plain JSON: TypeBox's symbol keys (its kind markers) dropped, every object a fresh copy. */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}
