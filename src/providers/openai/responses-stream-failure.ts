import { redactKeyLikeTokens } from '../../core/redact-secrets.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { isRecord } from './is-record.js';

/**
 * The status each code of a Responses stream's `response.failed` / `error` event implies (the stream's
 * HTTP status was 200): the ones a client acts on keep their meaning, so an exhausted balance is not
 * retried elsewhere as an outage and a too-long prompt goes back to the client as its own 400. A Map:
 * the code is the upstream's text, and `constructor` must not find Object's own members.
 */
const STATUS_OF_CODE: ReadonlyMap<string, number> = new Map([
  ['rate_limit_exceeded', 429],
  ['insufficient_quota', 429],
  ['context_length_exceeded', 400],
  ['invalid_prompt', 400],
  ['server_error', 500],
]);

const TYPE_OF_STATUS: Readonly<Record<number, string>> = { 400: 'invalid_request_error', 429: 'rate_limit_error', 500: 'server_error', 502: 'upstream_error' };

const MAX_MESSAGE_LENGTH = 500;

/**
 * A native Responses stream that failed before any output (`response.failed` with `response.error`,
 * or a top-level `error` event) in the contract's terms, keeping the upstream's code.
 */
export function responsesStreamFailure(event: Record<string, unknown>): UpstreamFailure {
  const source = event.type === 'response.failed' && isRecord(event.response) && isRecord(event.response.error) ? event.response.error : event;
  const code = typeof source.code === 'string' && source.code !== '' ? source.code : null;
  const status = (code !== null ? STATUS_OF_CODE.get(code) : undefined) ?? 502;
  const text = typeof source.message === 'string' && source.message !== '' ? redactKeyLikeTokens(source.message) : 'The upstream reported a failed response before any output.';
  return {
    status,
    type: code === 'insufficient_quota' ? 'insufficient_quota' : (TYPE_OF_STATUS[status] ?? 'upstream_error'),
    code: code ?? 'upstream_response_failed',
    message: text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text,
    param: typeof source.param === 'string' ? source.param : null,
  };
}
