/**
 * The response cache's key: the account, the endpoint, the route profile, the stream mode and the body
 * in canonical JSON (object keys sorted at every depth, so field order never matters), hashed with
 * SHA-256. Only the hash is ever a key name: a prompt is never readable from Redis's key space or a
 * memory dump of the index.
 */
import { createHash } from 'node:crypto';

export interface ResponseCacheKeyParts {
  accountId: string;
  /** The endpoint's template (`/v1/chat/completions`); one body sent to two APIs is two entries. */
  endpoint: string;
  /** The route profile the body resolved to (its alias or preferences applied). */
  routeId: string;
  stream: boolean;
  body: unknown;
}

/** Bumped when the stored value's shape changes, so an older process never reads a newer entry. */
const KEY_VERSION = 'rc1';

export function responseCacheKey(parts: ResponseCacheKeyParts): string {
  const hash = createHash('sha256');
  hash.update(KEY_VERSION);
  for (const part of [parts.accountId, parts.endpoint, parts.routeId, parts.stream ? 'stream' : 'whole']) hash.update(`\u0000${part.length}:${part}`);
  hash.update('\u0000');
  hash.update(canonicalJson(parts.body));
  return hash.digest('hex');
}

/**
 * JSON with every object's keys in code-point order, no whitespace; arrays keep their order (it is
 * meaning). Values JSON cannot hold are written as JSON.stringify writes them (undefined keys dropped).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${fields.join(',')}}`;
}
