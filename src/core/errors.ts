/**
 * The closed catalogue of errors the router can return, and the one table that maps each code to its
 * HTTP status, OpenAI-style `type` and the guidance fields it carries (listed for clients in docs/api.md).
 * Everything that fails in the router throws or returns a RouterError; the HTTP layer serializes it in
 * exactly one place (server/send-error.ts).
 */

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'insufficient_quota'
  | 'upstream_error'
  | 'server_error'
  | 'edge_rejected';

/** Guidance links an error may carry; which ones is decided by the table, their values by config. */
export type GuidanceField =
  | 'docsUrl'
  | 'accountUrl'
  | 'apiKeyPrefix'
  | 'onboarding'
  | 'upgradeUrl'
  | 'billingUrl'
  | 'supportUrl'
  | 'catalogUrl';

interface ErrorSpec {
  status: number;
  type: ErrorType;
  guidance: readonly GuidanceField[];
  /** Authentication failures carry a WWW-Authenticate challenge. */
  challenge?: 'bare' | 'invalid_token';
  /** Permanent conditions tell the SDKs not to retry (`x-should-retry: false`). */
  noRetry?: boolean;
}

const AUTH: readonly GuidanceField[] = ['docsUrl', 'accountUrl', 'apiKeyPrefix'];
const QUOTA: readonly GuidanceField[] = ['docsUrl', 'upgradeUrl', 'billingUrl', 'supportUrl'];

export const ERROR_TABLE = {
  missing_api_key: { status: 401, type: 'authentication_error', guidance: [...AUTH, 'onboarding'], challenge: 'bare' },
  malformed_api_key: { status: 401, type: 'authentication_error', guidance: AUTH, challenge: 'invalid_token' },
  invalid_api_key: { status: 401, type: 'authentication_error', guidance: AUTH, challenge: 'invalid_token' },
  revoked_api_key: { status: 401, type: 'authentication_error', guidance: AUTH, challenge: 'invalid_token' },
  inactive_account: { status: 401, type: 'authentication_error', guidance: AUTH, challenge: 'invalid_token' },
  /** Disabled through PATCH /v1/keys/{hash} (`disabled: true`); it works again once enabled. */
  disabled_api_key: { status: 401, type: 'authentication_error', guidance: AUTH, challenge: 'invalid_token' },
  /** A management key on a model route: management keys manage keys and never call a model. */
  management_key_not_allowed: { status: 403, type: 'permission_error', guidance: ['docsUrl', 'accountUrl'], noRetry: true },
  /** An ordinary (inference) key on a management route (/v1/keys): only a management key may manage keys. */
  management_key_required: { status: 403, type: 'permission_error', guidance: ['docsUrl', 'accountUrl'], noRetry: true },
  plan_upgrade_required: { status: 403, type: 'permission_error', guidance: ['docsUrl', 'upgradeUrl', 'billingUrl'] },
  no_provider_access: { status: 403, type: 'permission_error', guidance: ['docsUrl', 'accountUrl'] },
  server_tool_not_allowed: { status: 403, type: 'permission_error', guidance: ['docsUrl', 'accountUrl', 'upgradeUrl'] },
  unknown_model: { status: 404, type: 'not_found_error', guidance: ['docsUrl', 'catalogUrl'] },
  not_found: { status: 404, type: 'not_found_error', guidance: ['docsUrl'] },
  /** A request named a preset (`@preset/<slug>` or `preset`) its organization has not, or not active. */
  preset_not_found: { status: 404, type: 'not_found_error', guidance: ['docsUrl', 'accountUrl'], noRetry: true },
  method_not_allowed: { status: 405, type: 'invalid_request_error', guidance: ['docsUrl'] },
  invalid_json: { status: 400, type: 'invalid_request_error', guidance: ['docsUrl'] },
  invalid_request: { status: 400, type: 'invalid_request_error', guidance: ['docsUrl'] },
  unsupported_parameter: { status: 400, type: 'invalid_request_error', guidance: ['docsUrl'] },
  request_too_large: { status: 413, type: 'invalid_request_error', guidance: ['docsUrl'] },
  /** Refused by the HTTP parser: the request line and headers together exceed Node's 16 KiB. */
  request_header_too_large: { status: 431, type: 'invalid_request_error', guidance: ['docsUrl'] },
  /** An `Expect` header asking for something other than `100-continue`, which the router cannot meet. */
  expectation_failed: { status: 417, type: 'invalid_request_error', guidance: ['docsUrl'] },
  /** The client did not finish sending its request within the server's time limit. */
  request_timeout: { status: 408, type: 'invalid_request_error', guidance: ['docsUrl'] },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error', guidance: ['docsUrl'] },
  /** The account already has its plan's maxConcurrentRequests in flight (all keys, every worker and instance). */
  concurrency_limit_exceeded: { status: 429, type: 'rate_limit_error', guidance: ['docsUrl', 'upgradeUrl'] },
  monthly_quota_exceeded: { status: 429, type: 'insufficient_quota', guidance: QUOTA, noRetry: true },
  /** Managed provider access used up its plan's monthly spend cap; the account's own provider keys keep working. */
  spend_cap_reached: { status: 402, type: 'insufficient_quota', guidance: ['docsUrl', 'accountUrl', 'upgradeUrl', 'billingUrl', 'supportUrl'], noRetry: true },
  /** A workspace's, member's or key's budget (set in the account app or the key API) is used up for its period. */
  budget_exceeded: { status: 402, type: 'insufficient_quota', guidance: ['docsUrl', 'accountUrl'], noRetry: true },
  /** A workspace's, member's or key's guardrail refuses the model, or leaves no provider the route may use. */
  guardrail_denied: { status: 403, type: 'permission_error', guidance: ['docsUrl', 'accountUrl'], noRetry: true },
  /** A key's own monthly cap (set in the account app) is used up; the account may have quota left. */
  key_quota_exceeded: { status: 429, type: 'insufficient_quota', guidance: ['docsUrl', 'accountUrl'], noRetry: true },
  /** A key's own per-minute limit (below the plan's) is reached. */
  key_rate_limit_exceeded: { status: 429, type: 'rate_limit_error', guidance: ['docsUrl', 'accountUrl'] },
  /** 502, or 504 when every attempt timed out. */
  all_upstreams_failed: { status: 502, type: 'upstream_error', guidance: ['docsUrl', 'supportUrl'] },
  /** An upstream rejected the request as the client's fault (a 4xx other than the failover triggers). */
  upstream_rejected_request: { status: 400, type: 'invalid_request_error', guidance: ['docsUrl'] },
  store_unavailable: { status: 503, type: 'server_error', guidance: ['supportUrl'] },
  /** The instance is draining for a restart: a new request is turned away, an unfinished one ended. */
  server_shutting_down: { status: 503, type: 'server_error', guidance: ['docsUrl'] },
  internal_error: { status: 500, type: 'server_error', guidance: ['supportUrl'] },
  /** GET /metrics without the configured bearer token (metrics.token). */
  metrics_token_required: { status: 401, type: 'authentication_error', guidance: ['docsUrl'], challenge: 'bare' },
  /**
   * The client went away before the answer (nginx's 499). Never sent, since nobody is listening: it is
   * what logs and request outcomes record, quietly, because a client leaving is not a router failure.
   */
  client_closed_request: { status: 499, type: 'invalid_request_error', guidance: [] },
  '1010': { status: 403, type: 'edge_rejected', guidance: ['docsUrl'] },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export function errorSpec(code: ErrorCode): ErrorSpec {
  return ERROR_TABLE[code];
}

export interface RouterErrorOptions {
  /** The request field at fault, serialized as `param`. */
  param?: string | null;
  /** Overrides the table's status where the contract allows a choice (upstream 4xx passed through). */
  status?: number;
  /** Extra JSON fields (never secrets): e.g. `profiles`, `attempts`. */
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  /** An upstream's own verdict passed through to the client (a non-failover 4xx): its type and code. */
  wire?: { type: string; code: string | null };
  /** The plan `upgradeUrl` offers (config/upgrade-plan.ts); null or absent: no upgradeUrl (nothing above helps). */
  upgradePlan?: string | null;
  cause?: unknown;
}

export class RouterError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly statusOverride: number | undefined;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly wire: { type: string; code: string | null } | undefined;
  readonly upgradePlan: string | null;

  constructor(code: ErrorCode, message: string, options: RouterErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RouterError';
    this.code = code;
    this.param = options.param ?? null;
    this.statusOverride = options.status;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
    this.wire = options.wire;
    this.upgradePlan = options.upgradePlan ?? null;
  }

  get status(): number {
    return this.statusOverride ?? ERROR_TABLE[this.code].status;
  }

  get type(): ErrorType {
    return ERROR_TABLE[this.code].type;
  }
}

export function isRouterError(value: unknown): value is RouterError {
  return value instanceof RouterError;
}
