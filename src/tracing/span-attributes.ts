/**
 * Attribute names of the router's spans: the OpenTelemetry HTTP conventions (stable) and the GenAI
 * conventions (still "development" upstream, so their names are written here rather than imported from
 * the package's incubating entry point, which may rename them in any release), then the router's own.
 * Values are ids, codes, counts and timings only: never a prompt, a completion, a key or a header value.
 */
import type { Attributes } from '@opentelemetry/api';
import type { ProviderConfig } from '../config/types.js';
import type { TokenUsage } from '../core/token-usage.js';

export const HTTP_REQUEST_METHOD = 'http.request.method';
export const HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const HTTP_ROUTE = 'http.route';
export const ERROR_TYPE = 'error.type';
export const SERVER_ADDRESS = 'server.address';
export const SERVER_PORT = 'server.port';

export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';

export const ROUTER = {
  requestId: 'router.request_id',
  accountId: 'router.account.id',
  keyId: 'router.key.id',
  routeProfile: 'router.route_profile',
  retryCount: 'router.retry_count',
  limitDecision: 'router.limit.decision',
  counted: 'router.quota.counted',
  errorCode: 'router.error.code',
  clientClosed: 'router.client_closed',
  servedBy: 'router.served.provider',
  providerId: 'router.provider.id',
  credentialSource: 'router.credential.source',
  attemptNumber: 'router.attempt.number',
  attemptOutcome: 'router.attempt.outcome',
  failoverReason: 'router.failover.reason',
  timeToFirstByteMs: 'router.attempt.time_to_first_byte_ms',
  fusionRole: 'router.fusion.role',
  fusionCall: 'router.fusion.call',
  fusionStatus: 'router.fusion.status',
} as const;

/** Longest string value a span carries: ids and codes fit; anything longer is cut, never exported whole. */
export const MAX_ATTRIBUTE_LENGTH = 128;

/**
 * gen_ai.provider.name: the conventions' well-known names for the APIs the router speaks natively; an
 * OpenAI-compatible host other than OpenAI's is named by its provider id (operator configuration).
 */
export function genAiProviderName(provider: Pick<ProviderConfig, 'id' | 'format'>): string {
  if (provider.format === 'anthropic') return 'anthropic';
  if (provider.format === 'gemini') return 'gcp.gemini';
  return provider.id;
}

export function usageAttributes(usage: TokenUsage | null | undefined): Attributes {
  if (!usage) return {};
  return { [GEN_AI_USAGE_INPUT_TOKENS]: usage.prompt, [GEN_AI_USAGE_OUTPUT_TOKENS]: usage.completion };
}
