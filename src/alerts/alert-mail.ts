/** Mails an alert to the account's sign-in address when the account wants that kind by email. */
import type { MailMessage, Mailer } from '../mail/mailer.js';
import type { AlertKind } from '../stores/alert-store.js';
import type { Store } from '../stores/store.js';
import { DEFAULT_EMAIL_KINDS } from './alert-rules.js';

export function mailAlertTo(deps: { store: Store; mail: Mailer }, accountId: string, kind: AlertKind, build: (email: string) => MailMessage): void {
  deps.mail.sendLater(`${kind} alert`, async () => {
    const kinds = (await deps.store.getAlertEmailKinds(accountId)) ?? DEFAULT_EMAIL_KINDS;
    if (!kinds.includes(kind)) return null;
    const email = (await deps.store.getLogin(accountId))?.email ?? (await deps.store.getAccount(accountId))?.email;
    return email ? build(email) : null;
  });
}
