/**
 * Email verification: a new login confirms its address through a mailed single-use link (kind `verify`)
 * before anything that spends works (a key made, the playground, a provider key's Test), when
 * `app.requireEmailVerification` is on (by default exactly when mail goes out through SMTP). Logins that
 * existed before verification count as confirmed (migration 6), and so does an account the operator made
 * with `router accounts create`: it has no login until its owner uses a reset link, which confirms it.
 */
import { getRequestHeader, type H3Event } from 'h3';
import { issueLink, LinkRefusedError } from '../accounts/link-tokens.js';
import { publicLinks } from '../config/public-links.js';
import { verifyLinkMessage } from '../mail/mail-messages.js';
import type { PageContext } from './page-kit.js';
import type { WebDeps } from './web-deps.js';

/** True when the account must still confirm its email before a key is shown. */
export async function verificationNeeded(deps: WebDeps, accountId: string): Promise<boolean> {
  if (!deps.config.server.app.requireEmailVerification) return false;
  const login = await deps.store.getLogin(accountId);
  return login !== null && login.emailVerifiedAt === null;
}

/**
 * What every page that spends (Get started's first key, API keys, the playground, a provider key's Test)
 * shows an account that must still confirm its email: where the link went, and "Send the link again".
 */
export function verifyEmailView(deps: WebDeps, page: PageContext, extra: Record<string, unknown> = {}, status?: number): string {
  const data = { title: 'Confirm your email', heading: 'Confirm your email', email: page.account.email, linkMinutes: deps.config.server.app.linkMinutes, ...extra };
  return page.view('verify-email', data, status ? { status } : {});
}

/**
 * Mails a fresh verification link to the login with this email (nothing when there is none), off the
 * request path and within the mail limits (mail-limits.ts); the new link makes the earlier ones expire. Nothing either when verification is off: the message asks to confirm before the first key.
 */
export function sendVerificationLink(deps: WebDeps, email: string, event: H3Event): void {
  if (!deps.config.server.app.requireEmailVerification) return;
  const { appUrl } = publicLinks(deps.config.server, getRequestHeader(event, 'host'));
  deps.strangerMail.sendLater('email verification', 'verify', email, deps.clientAddress(event), async () => {
    try {
      const link = await issueLink({ store: deps.store, clock: deps.clock, server: deps.config.server, appUrl }, 'verify', email, 'app');
      return verifyLinkMessage(link.email, link.url, deps.config.server.app.linkMinutes);
    } catch (error) {
      if (error instanceof LinkRefusedError) return null;
      throw error;
    }
  });
}
