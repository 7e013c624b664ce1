/**
 * Password hashes: scrypt from node:crypto with OWASP's parameters (N=2^17, r=8, p=1), a 16-byte salt and
 * a 32-byte key, encoded with their parameters (`scrypt$N$r$p$salt$hash`, base64url) so stronger
 * parameters can be adopted later without breaking stored hashes. Comparison is constant-time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LISTS_DIR } from './asset-dirs.js';

/** OWASP's scrypt cost (N), what every deployment hashes with. */
export const OWASP_PASSWORD_COST = 2 ** 17;
const N = OWASP_PASSWORD_COST;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node's default maxmem (32 MiB) is below that for N = 2^17.
  const maxmem = 256 * (options.N ?? N) * (options.r ?? R) + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** scrypt's cost for new hashes: OWASP's unless a test suite lowered it with setPasswordCostForTests. */
let costOfNewHashes = N;

/**
 * Test suites only: new hashes use cost `cost` (OWASP_PASSWORD_COST restores OWASP's). At OWASP cost
 * one hash takes about 0.4 s of a core and 128 MiB, so a suite that signs in a few hundred times spends
 * minutes hashing without testing anything more. Verification reads the cost stored with each hash, so hashes of either
 * cost keep verifying. Refused under NODE_ENV=production, so no deployment can weaken its hashes by it.
 */
export function setPasswordCostForTests(cost: number): void {
  if (process.env.NODE_ENV === 'production') throw new Error('password hashing cost is fixed in production');
  if (!Number.isInteger(Math.log2(cost)) || cost < 2 || cost > N) throw new Error(`scrypt cost must be a power of two up to ${N}`);
  costOfNewHashes = cost;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const cost = costOfNewHashes;
  const key = await derive(password, salt, { N: cost, r: R, p: P });
  return ['scrypt', cost, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** False for a wrong password and for anything that is not a hash this module wrote. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [cost, blockSize, parallel] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![cost, blockSize, parallel].every((value) => Number.isInteger(value) && value > 0) || cost > 2 ** 20) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, salt, { N: cost, r: blockSize, p: parallel });
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password, verified against when the email is unknown, so a sign-in for an unknown
 * address takes as long as one with a wrong password (no account enumeration by timing).
 */
let decoy: { cost: number; hash: Promise<string> } | undefined;
export function decoyHash(): Promise<string> {
  // At the cost new hashes have, so an unknown email costs what a known one does.
  if (decoy?.cost !== costOfNewHashes) decoy = { cost: costOfNewHashes, hash: hashPassword(randomBytes(16).toString('hex')) };
  return decoy.hash;
}

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

let common: ReadonlySet<string> | undefined;
/** The shipped list of common passwords (lists/common-passwords.txt), read once, lower-cased. */
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(
    readFileSync(join(LISTS_DIR, 'common-passwords.txt'), 'utf8')
      .split('\n')
      .map((line) => line.trim().toLowerCase())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
  return common;
}

/**
 * The rule a new password must meet (NIST SP 800-63B: length, and not a known common password), or null
 * when it does. A password of one repeated character is refused like a listed one.
 */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  const folded = password.normalize('NFC').toLowerCase();
  if (commonPasswords().has(folded) || /^(.)\1*$/su.test(folded)) return 'This password is on a list of common passwords that attackers try first. Choose another.';
  return null;
}
