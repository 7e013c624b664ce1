/**
 * How people reach the operator (`app.support`): an email address, shown and mailed by the signed-in
 * contact form when mail can be sent, or an https URL of the operator's own help desk, linked instead.
 * The form's fields are checked here; the message itself is only ever put into the mail to the operator,
 * never into a log, an audit event or a page other than the form it was typed into.
 */
import { parseEmailAddress } from '../core/email-address.js';
import type { MailMessage } from '../mail/mailer.js';

export type SupportContact = { kind: 'email'; address: string; href: string; label: string } | { kind: 'url'; href: string; label: string };

/** The configured contact (already schema-checked), or null when the operator set none. */
export function supportContact(configured: string | undefined): SupportContact | null {
  if (!configured) return null;
  const address = parseEmailAddress(configured);
  if (address !== null) return { kind: 'email', address, href: `mailto:${address}`, label: address };
  try {
    const url = new URL(configured);
    return url.protocol === 'https:' ? { kind: 'url', href: url.href, label: url.href } : null;
  } catch {
    return null;
  }
}

export const SUBJECT_MAX = 150;
export const MESSAGE_MAX = 4000;

export interface SupportRequest {
  subject: string;
  message: string;
}

/** The fields as they will be mailed, or the error of each field that is not right. */
export function readSupportRequest(form: Readonly<Record<string, string>>): { request: SupportRequest } | { errors: Record<string, string> } {
  // One line: a subject never carries a line break (or any control character) into a mail header.
  const subject = (form.subject ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const message = (form.message ?? '').replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').trim();
  const errors: Record<string, string> = {};
  if (subject === '') errors.subject = 'Say in a few words what it is about.';
  else if (subject.length > SUBJECT_MAX) errors.subject = `Keep the subject to ${SUBJECT_MAX} characters (it has ${subject.length}).`;
  if (message === '') errors.message = 'Write what happened or what you need.';
  else if (message.length > MESSAGE_MAX) errors.message = `Keep the message to ${MESSAGE_MAX} characters (it has ${message.length}); attach details as a support bundle instead.`;
  return Object.keys(errors).length > 0 ? { errors } : { request: { subject, message } };
}

/** The mail to the operator: who asked (person, organization, plan) and what they wrote; replies go to the person. */
export function supportMessage(
  to: string,
  request: SupportRequest,
  from: { email: string; organization: string; accountId: string; plan: string; role: string },
): MailMessage {
  return {
    to,
    replyTo: from.email,
    confidential: true,
    subject: `[Support] ${request.subject}`,
    text: [
      `From: ${from.email} (${from.role} of ${from.organization}, account ${from.accountId}, plan ${from.plan})`,
      'Reply to this email to answer them.',
      '',
      request.message,
    ].join('\n'),
  };
}
