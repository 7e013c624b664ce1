/**
 * Single-use invite, password-reset and email-verification links. The CLI prints invite and reset links
 * (`router accounts invite` / `reset-link`); the app mails the ones a person asks for through app.mail
 * (src/mail/; `log` writes them to the server log). Only the token's hash is stored; a link lives at most
 * 30 minutes and works once, and a new link of a kind for an email makes the earlier unused ones expire.
 */
import { hashToken, newToken } from '../core/secret-tokens.js';
import type { ServerConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { parseEmailAddress } from '../core/email-address.js';
import type { LinkKind } from '../stores/account-auth-store.js';
import type { Store } from '../stores/store.js';

export const LINK_PATH = '/link';

export interface IssuedLink {
  kind: LinkKind;
  email: string;
  accountId: string | null;
  url: string;
  expiresAt: string;
}

/** Why a link cannot be issued (the CLI exits 1 with this message). */
export class LinkRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinkRefusedError';
  }
}

export async function issueLink(
  /** `appUrl`: where the link points (public-links.ts: the configured one, or the loopback name the person used). */
  deps: { store: Store; clock: Clock; server: ServerConfig; appUrl?: string },
  kind: LinkKind,
  rawEmail: string,
  actor: string,
): Promise<IssuedLink> {
  const email = parseEmailAddress(rawEmail);
  if (email === null) throw new LinkRefusedError(`'${rawEmail.slice(0, 320)}' is not one plain email address`);
  let accountId: string | null = null;
  if (kind === 'invite') {
    if (await deps.store.findLoginByEmail(email)) throw new LinkRefusedError(`${email} can already sign in; issue a reset link instead`);
  } else {
    const login = await deps.store.findLoginByEmail(email);
    const accounts = login ? [login.account] : await deps.store.findAccountsByEmail(email);
    if (accounts.length === 0) throw new LinkRefusedError(`no account has the email ${email}`);
    if (accounts.length > 1) throw new LinkRefusedError(`${accounts.length} accounts share the email ${email}; give each its own address first`);
    accountId = accounts[0]!.id;
  }
  const token = newToken();
  const expiresAt = new Date(deps.clock.now() + deps.server.app.linkMinutes * 60_000).toISOString();
  await deps.store.createLinkToken({ kind, email, accountId, tokenHash: hashToken(token), expiresAt }, actor);
  return { kind, email, accountId, url: `${deps.appUrl ?? deps.server.appUrl}${LINK_PATH}?token=${token}`, expiresAt };
}
