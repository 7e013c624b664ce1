import type { KeyService } from '../../accounts/key-service.js';
import { RouterError } from '../../core/errors.js';
import { isHeaderName } from '../is-header-name.js';
import { establishing, type Authenticated, type Received } from '../request-context.js';
import type { Stage } from './stage.js';

/**
 * Resolves the bearer key to an account; failures are the contract's guided 401s. Anthropic's clients
 * send the key as `x-api-key` (ANTHROPIC_API_KEY), checked exactly like a bearer token.
 */
export function createAuthenticateStage(keys: KeyService): Stage<Received, Authenticated> {
  return (event, request) => {
    const authorization = presentedAuthorization(event.node.req.rawHeaders);
    const authenticated = establishing<Authenticated>(request);
    // A key verified within the cache's TTL (nearly every request) costs no await.
    const cached = keys.verifyCached(authorization);
    if (cached) {
      authenticated.caller = cached;
      return undefined;
    }
    return keys.verify(authorization).then((caller) => {
      authenticated.caller = caller;
      return authenticated;
    });
  };
}

/**
 * The one credential a request presents, as an Authorization value: its `Authorization` header, or
 * `Bearer <x-api-key>` when only `x-api-key` (the Anthropic SDK's header) is sent. Read from the raw
 * headers because Node keeps only the first of two Authorization headers in `req.headers`: a request
 * presenting two credentials (two Authorization headers, two x-api-key, or both naming different keys)
 * is refused rather than judged by whichever came first.
 */
export function presentedAuthorization(rawHeaders: readonly string[]): string | undefined {
  let authorization: string | undefined;
  let apiKey: string | undefined;
  let authorizations = 0;
  let apiKeys = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    if (isHeaderName(name, 'authorization', 'Authorization')) {
      authorizations++;
      authorization = rawHeaders[i + 1] ?? '';
    } else if (isHeaderName(name, 'x-api-key', 'X-Api-Key')) {
      apiKeys++;
      apiKey = rawHeaders[i + 1] ?? '';
    }
  }
  if (authorizations > 1) throw twoCredentials('authorization', 'The request carries more than one Authorization header; send exactly one.');
  if (apiKeys > 1) throw twoCredentials('x-api-key', 'The request carries more than one x-api-key header; send exactly one.');
  apiKey = apiKey?.trim() || undefined;
  if (apiKey === undefined) return authorization;
  if (authorization === undefined || authorization.trim() === '') return `Bearer ${apiKey}`;
  if (/^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] !== apiKey) {
    throw twoCredentials('x-api-key', 'The Authorization and x-api-key headers name different keys; send one key, in one of them.');
  }
  return authorization;
}

function twoCredentials(header: string, message: string): RouterError {
  return new RouterError('invalid_request', message, { param: header });
}
