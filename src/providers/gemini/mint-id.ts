import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 248 = 4 × 62: bytes at or above it are skipped so every character is equally likely. */
const UNBIASED_LIMIT = 248;

/**
 * `prefix` + 24 random base62 characters, e.g. `call_…` for tool calls Gemini sends without an id.
 * Base62 keeps the id legal for every provider (Anthropic requires `^[a-zA-Z0-9_-]+$`).
 */
export function mintId(prefix: string, length = 24): string {
  let out = prefix;
  while (out.length < prefix.length + length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT && out.length < prefix.length + length) out += BASE62[byte % 62];
    }
  }
  return out;
}
