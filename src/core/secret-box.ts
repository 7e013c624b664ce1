/**
 * Seals provider credentials at rest: AES-256-GCM with a key derived from the server secret by
 * HKDF-SHA256. The version prefix leaves room to change the scheme without a flag day.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Fixed context for HKDF: the same server secret also keys API-key hashes, and this keeps the two apart.
const HKDF_INFO = 'llm-router/secret-box/v1';
const HKDF_SALT = Buffer.alloc(0);

function deriveKey(secretKey: string): Buffer {
  if (secretKey.length === 0) throw new Error('secret-box needs a non-empty secret key');
  return Buffer.from(hkdfSync('sha256', secretKey, HKDF_SALT, HKDF_INFO, 32));
}

export function sealSecret(plaintext: string, secretKey: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secretKey), iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((bytes) => bytes.toString('base64url'));
  return [VERSION, ...parts].join('.');
}

/** Throws when the value is malformed, was sealed with another key, or was altered. */
export function openSecret(sealed: string, secretKey: string): string {
  const [version, iv, tag, ciphertext, ...rest] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined || rest.length > 0) {
    throw new Error('sealed secret is malformed');
  }
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  // An explicit tag length stops a shortened tag from being accepted (GCM would otherwise allow it).
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('sealed secret is malformed');
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(secretKey), ivBytes, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tagBytes);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new Error('sealed secret cannot be opened: wrong secret key or altered value', { cause: error });
  }
}
