/**
 * What each error code means and what to do about it, for the generated /docs/errors page. Typed by the
 * error table's codes: adding a code to core/errors.ts without a line here fails to compile, so the
 * docs cannot drift from the API.
 */
import type { ErrorCode } from '../../core/errors.js';

export const ERROR_DOCS: Readonly<Record<ErrorCode, { meaning: string; action: string }>> = {
  missing_api_key: { meaning: 'The request to /v1 carried no Authorization header.', action: 'Create an account, generate a key, and send it as "Authorization: Bearer sk_router_…".' },
  malformed_api_key: { meaning: 'The Authorization header is not "Bearer sk_router_…", or the key fails its checksum (a typo or a truncated copy).', action: 'Copy the key again exactly as it was shown, or generate a new one.' },
  invalid_api_key: { meaning: 'The key is well formed but this router does not know it.', action: 'Check you are using the right server and key; generate a new key if it was lost.' },
  revoked_api_key: { meaning: 'The key was revoked, expired, or rotated and its grace period has ended.', action: 'Use the replacement key, or generate a new one on the keys page.' },
  disabled_api_key: { meaning: 'The key was disabled through the key API (PATCH /v1/keys/{hash} with "disabled": true).', action: 'Enable it again with "disabled": false using a management key, or use another key.' },
  management_key_not_allowed: { meaning: 'A management key was sent to a model route. Management keys manage keys (/v1/keys) and never call a model.', action: 'Call models with an ordinary key; use the management key only for /v1/keys.' },
  management_key_required: { meaning: 'An ordinary key was sent to a management route (/v1/keys, or a preset write under /v1/presets). Only a management key may create, change or delete keys and presets.', action: 'Create a management key on the keys page (or with router keys create --management) and send that one.' },
  inactive_account: { meaning: 'The account this key belongs to is deactivated.', action: 'See the deactivated-account page for what to do; contact the operator.' },
  plan_upgrade_required: { meaning: 'The route profile or tool (router/fusion, router:fusion) is not part of your plan.', action: 'Use router/frontier, or upgrade to Pro or Max.' },
  no_provider_access: { meaning: 'No provider credential is available to your account for this route: you have not added a provider key, and managed access is off. For router/fusion: your keys reach too few panel members, or none of the writer’s providers (missingProviders names them).', action: 'Add your own key for one of the route’s providers (for fusion, one named in missingProviders) on the provider-keys page.' },
  server_tool_not_allowed: { meaning: 'The request asks for something the upstream bills beyond tokens (a server or hosted tool such as web_search, an MCP connector, a code-execution container, a priority service tier) and would run on the operator’s provider keys, whose plan does not allow it; param names the field.', action: 'Remove the named field, add your own provider key on the provider-keys page (requests on your own keys pass everything through), or use a plan that allows the tool.' },
  unknown_model: { meaning: 'The model field names no route profile or concrete model your key may use.', action: 'Use a name from the error’s `suggestions` (allowed names that resemble the one asked for) or `profiles`, or see the model catalog.' },
  not_found: { meaning: 'No such endpoint or page.', action: 'The API lives under /v1: chat/completions, responses, models.' },
  preset_not_found: { meaning: 'The request named a preset (@preset/<slug> in model, or the preset field) that its organization does not have, or has disabled or archived.', action: 'Check the slug in GET /v1/presets or on the presets page; @preset/… entries in GET /v1/models are the ones you can use.' },
  method_not_allowed: { meaning: 'The endpoint exists but not with this HTTP method.', action: 'Use the method in the Allow header.' },
  invalid_json: { meaning: 'The request body is not valid JSON.', action: 'Send a JSON object with Content-Type: application/json.' },
  invalid_request: { meaning: 'A field is missing or has the wrong type; param names it.', action: 'Fix the named field.' },
  unsupported_parameter: { meaning: 'The request uses a parameter the chosen route cannot honour.', action: 'Remove the parameter named in param, or pick another route profile.' },
  request_header_too_large: { meaning: 'The request line and headers together are larger than 16 KiB.', action: 'Send fewer or shorter headers.' },
  expectation_failed: { meaning: 'The request carried an Expect header asking for something other than 100-continue, which the router cannot meet.', action: 'Drop the Expect header, or send "Expect: 100-continue".' },
  request_timeout: { meaning: 'The request did not arrive completely within the server’s request timeout.', action: 'Check the client’s connection and retry.' },
  request_too_large: { meaning: 'The body is larger than the server’s limit (10 MiB by default).', action: 'Send a smaller request.' },
  rate_limit_exceeded: { meaning: 'Your account’s requests-per-minute limit is reached.', action: 'Wait Retry-After seconds; the X-RateLimit-* headers show the window.' },
  concurrency_limit_exceeded: { meaning: 'Your account already has as many requests in flight as its plan allows at once (maxConcurrentRequests, all keys together).', action: 'Wait for one of your requests to finish (Retry-After says when to try again), send fewer at once, or upgrade for a larger share.' },
  monthly_quota_exceeded: { meaning: 'Your plan’s monthly request quota is used up.', action: 'Wait for X-Quota-Reset, or upgrade your plan.' },
  key_quota_exceeded: { meaning: 'This key’s own monthly cap, set on the keys page, is used up (the account may have quota left).', action: 'Raise or remove the key’s cap, or use another key.' },
  key_rate_limit_exceeded: { meaning: 'This key’s own requests-per-minute limit, set on the keys page, is reached.', action: 'Wait Retry-After seconds, or raise the key’s limit.' },
  budget_exceeded: { meaning: 'A budget of the key’s workspace, of the member who made the key, or of the key itself is used up for its period; budget names it (scope, id, name: the workspace’s name or the member’s email, period, limitUsd, spentUsd) and resetsAt says when it resets (none for a total budget). Nothing was sent to a provider.', action: 'Ask an admin to raise the budget on the Guardrails page (accountUrl), wait for resetsAt, or use a key with budget left.' },
  guardrail_denied: { meaning: 'A guardrail of the key’s workspace, member or key does not allow the model, or leaves no provider of it the request may use (allowed or denied models and providers, zero data retention); guardrail names which one and which rule. Nothing was sent to a provider.', action: 'Use a model the guardrail allows, or ask an admin to change the guardrail on the Guardrails page (accountUrl).' },
  spend_cap_reached: { meaning: 'Managed provider access (the operator’s provider keys) used up your plan’s monthly spend cap; capUsd and resetsAt say which cap and when it resets. Your own provider keys keep working.', action: 'Add your own provider key on the provider-keys page, wait for resetsAt, or upgrade your plan.' },
  all_upstreams_failed: { meaning: 'Every provider candidate for the route failed (502, or 504 when all timed out); attempts lists them without bodies. When every one refused for the same reason, the answer says it instead: 429 rate_limit_exceeded with Retry-After (all rate limited), or 402/429 insufficient_quota (all out of credit).', action: 'Retry shortly and check the status page (after Retry-After when rate limited; not at all when out of credit: add credit with the provider or another provider key); the request was not counted.' },
  upstream_rejected_request: { meaning: 'The provider rejected the request as invalid (a 4xx that is the request’s fault).', action: 'Fix the request; the provider’s own type and code are passed through (this code when the provider gave none).' },
  store_unavailable: { meaning: 'The router cannot reach its database, so it cannot meter the request.', action: 'Retry after the Retry-After seconds.' },
  server_shutting_down: { meaning: 'This instance is shutting down (a deploy or restart); the request was not counted.', action: 'Retry after Retry-After seconds; another instance will take it.' },
  client_closed_request: { meaning: 'The client closed the connection before the answer (never sent; it appears in logs and usage records).', action: 'Nothing to do unless your client times out too early.' },
  internal_error: { meaning: 'The router failed unexpectedly.', action: 'Retry; if it persists, contact support with the X-Request-Id.' },
  metrics_token_required: { meaning: 'GET /metrics was called without the bearer token the operator configured (metrics.token).', action: 'Send "Authorization: Bearer <metrics token>"; this endpoint is for the operator’s scraper, not for API keys.' },
  '1010': { meaning: 'The client sent no descriptive User-Agent (edge rule).', action: 'Set a User-Agent naming your application; the official SDKs and curl already do.' },
};
