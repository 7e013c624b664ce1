/**
 * The generated key format: `sk_router_` + 32 random base62 characters + 6 base62 characters of the
 * CRC32 of the random part. The checksum lets the router (and secret scanners) reject typos without a
 * store look-up. Only a hash of the full key is ever stored.
 */
import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'sk_router_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(randomPart: string): string {
  // 62^6 > 2^32, so six characters hold any CRC32 value.
  return toBase62(crc32(randomPart) >>> 0, CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return API_KEY_PREFIX + random + checksumOf(random);
}

/**
 * A well-formed key computed from a secret and a label (HMAC-SHA-512, base62 by rejection sampling, so
 * no character is likelier than another): the same on every process that has the secret, and nothing
 * without it. For a key the router holds for itself and never shows (the playground's).
 */
export function deriveApiKey(secret: string, label: string): string {
  let random = '';
  for (let round = 0; random.length < RANDOM_LENGTH; round++) {
    for (const byte of createHmac('sha512', secret).update(`${label}\0${round}`).digest()) {
      if (byte < 248 && random.length < RANDOM_LENGTH) random += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + random + checksumOf(random);
}

/** True when the key has the right prefix, alphabet, length and checksum. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const random = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + RANDOM_LENGTH);
  const checksum = key.slice(API_KEY_PREFIX.length + RANDOM_LENGTH);
  return checksumOf(random) === checksum;
}

/** Hex SHA-256 of the full key, keyed with the server secret (HMAC) when one is configured. */
export function hashApiKey(key: string, secret?: string): string {
  return secret ? createHmac('sha256', secret).update(key).digest('hex') : createHash('sha256').update(key).digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export function lastFour(key: string): string {
  return key.slice(-4);
}
