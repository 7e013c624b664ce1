/**
 * The probe's HTTP: one request as a client would send it, read whole, with a bound on time. The request
 * is described for reports without the key (prefix and last four characters only).
 */
import { API_KEY_PREFIX } from '../../core/api-key.js';
import { describeError } from '../../core/describe-error.js';
import { ProbeFailure } from './probe-session.js';
import type { ProbeResponse } from './probe-response.js';

export const PROBE_USER_AGENT = 'router-probe/0.2 (+https://github.com/llm-router)';
const TIMEOUT_MS = 60_000;

export interface ProbeRequest {
  method?: 'GET' | 'POST';
  url: string;
  /** Sent as `Authorization: Bearer …`, or as `x-api-key` (what the Anthropic SDK and Claude Code send). */
  key?: string;
  keyHeader?: 'authorization' | 'x-api-key';
  /** Further request headers (e.g. anthropic-version). */
  headers?: Readonly<Record<string, string>>;
  /** Replaces the probe's own User-Agent ('' sends an empty one). */
  userAgent?: string;
  body?: unknown;
}

export function describeRequest(request: ProbeRequest): string {
  const scheme = request.keyHeader === 'x-api-key' ? 'x-api-key' : 'Bearer';
  const key = request.key ? ` with ${scheme} ${API_KEY_PREFIX}…${request.key.slice(-4)}` : '';
  const agent = request.userAgent === undefined ? '' : ` with User-Agent "${request.userAgent}"`;
  return `${request.method ?? 'GET'} ${request.url}${key}${agent}`;
}

export async function probeFetch(request: ProbeRequest): Promise<ProbeResponse> {
  const headers: Record<string, string> = { ...request.headers, 'user-agent': request.userAgent ?? PROBE_USER_AGENT };
  if (request.key && request.keyHeader === 'x-api-key') headers['x-api-key'] = request.key;
  else if (request.key) headers.authorization = `Bearer ${request.key}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await fetch(request.url, {
      method: request.method ?? 'GET',
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      redirect: 'follow',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : describeError(error);
    throw new ProbeFailure('an HTTP response', undefined, describeRequest(request), cause);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json, request: describeRequest(request) };
}

const REACH_TIMEOUT_MS = 15_000;

/**
 * Why nothing answers HTTP at the origin (connection refused, no such host, no answer in time), or
 * undefined when something does, whatever its status: the probe's checks then say what is wrong.
 */
export async function unreachableBecause(origin: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${origin}/healthz`, { headers: { 'user-agent': PROBE_USER_AGENT }, redirect: 'manual', signal: AbortSignal.timeout(REACH_TIMEOUT_MS) });
    await response.body?.cancel();
    return undefined;
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${REACH_TIMEOUT_MS / 1000} s`;
    return error instanceof Error && error.cause instanceof Error ? error.cause.message : describeError(error);
  }
}

