/**
 * The app's tests sign up and sign in hundreds of times; at OWASP's scrypt cost each of those hashes
 * takes about 0.4 s of a core (more on a loaded machine): minutes of a run spent on nothing under test.
 * So every test file starts with cheap hashes (a cost of 2^10, about 2 ms; vitest.config.ts runs
 * cheapPasswordHashes() before each file), as Django's test runner swaps in a fast hasher. The tests
 * about the hash itself (its stored parameters, sign-up timing) call owaspPasswordHashes() first. A
 * router spawned from dist/ is another process and always hashes at OWASP's cost.
 */
import { OWASP_PASSWORD_COST, setPasswordCostForTests } from '../../src/app/password-hashing.js';

export const CHEAP_PASSWORD_COST = 2 ** 10;

/** New password hashes in this test file's process are cheap from now on. */
export function cheapPasswordHashes(): void {
  setPasswordCostForTests(CHEAP_PASSWORD_COST);
}

/** New password hashes in this test file's process cost what they cost in production again. */
export function owaspPasswordHashes(): void {
  setPasswordCostForTests(OWASP_PASSWORD_COST);
}
