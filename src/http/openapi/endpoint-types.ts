/** What one entry of the OpenAPI registry (public-endpoints.ts, preset-endpoints.ts) says of an endpoint. */
import type { TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface EndpointParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description: string;
  schema: Record<string, unknown>;
}

export interface PublicEndpoint {
  /** The path in OpenAPI's template form (`/v1/keys/{hash}`). */
  path: string;
  method: HttpMethod;
  operationId: string;
  summary: string;
  tag: 'Models' | 'Usage' | 'Keys' | 'Presets' | 'Meta';
  /** The JSON Schema the body stage validates the body with; absent: no body. */
  requestSchema?: TSchema;
  parameters?: readonly EndpointParameter[];
  /** What a success answers (status and what it carries); a stream is described here too. */
  success: { status: 200 | 201; description: string; streams?: boolean };
  /** The contract's error codes this endpoint may answer with beyond those every authenticated request may. */
  errors: readonly ErrorCode[];
  /** `bearer`: an inference key (`sk_router_…`); `management`: a management key; `none`: public. */
  auth: 'bearer' | 'management' | 'none';
  /** Also served at OpenRouter's /api/v1 path (the key API). */
  openRouterAlias?: boolean;
  /** Errors in Anthropic's shape (`{"type": "error", "error": {…}}`), as /v1/messages answers them. */
  anthropicErrors?: boolean;
}

/** What a management route may answer beyond authentication, and with a JSON body (the key and preset APIs). */
export const MANAGEMENT: readonly ErrorCode[] = ['management_key_required', 'rate_limit_exceeded'];
export const KEY_BODY: readonly ErrorCode[] = [...MANAGEMENT, 'invalid_json', 'invalid_request', 'request_too_large'];
