/**
 * Email verification: a new login confirms its address through a mailed single-use link (kind `verify`)
 * before its first key is shown, when `app.requireEmailVerification` is on (by default exactly when mail
 * goes out through SMTP). Logins that existed before verification count as confirmed (migration 6).
 */
import { issueLink, LinkRefusedError } from '../accounts/link-tokens.js';
import { verifyLinkMessage } from '../mail/mail-messages.js';
import type { WebDeps } from './web-deps.js';

/** True when the account must still confirm its email before a key is shown. */
export async function verificationNeeded(deps: WebDeps, accountId: string): Promise<boolean> {
  if (!deps.config.server.app.requireEmailVerification) return false;
  const login = await deps.store.getLogin(accountId);
  return login !== null && login.emailVerifiedAt === null;
}

/**
 * Mails a fresh verification link to the login with this email (nothing when there is none), off the
 * request path. Nothing either when verification is off: the message asks to confirm before the first key.
 */
export function sendVerificationLink(deps: WebDeps, email: string): void {
  if (!deps.config.server.app.requireEmailVerification) return;
  deps.mail.sendLater('email verification', async () => {
    try {
      const link = await issueLink({ store: deps.store, clock: deps.clock, server: deps.config.server }, 'verify', email, 'app');
      return verifyLinkMessage(link.email, link.url, deps.config.server.app.linkMinutes);
    } catch (error) {
      if (error instanceof LinkRefusedError) return null;
      throw error;
    }
  });
}
