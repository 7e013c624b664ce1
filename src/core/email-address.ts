/**
 * The one check of an email address a person or the operator types (sign-up, sign-in, forgot password,
 * the CLI's `--email`), and of every recipient before a mail leaves. One plain mailbox only: RFC 5322's
 * header syntax also allows display names (`x<you@example.org>`), lists (`x,you@example.org`), groups
 * (`g:you@example.org;`), quoted local parts and comments, and a mail library handed such a string parses
 * it into other recipients than the one stored. So the local part is a dot-atom of ASCII atext (no quotes,
 * no `<>()[],;:\` or spaces), the domain a host name with at least one dot (no IP literal, no bare local
 * name a relay would complete), ASCII only (an international domain is typed in its `xn--` form).
 */

const LOCAL_ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL_PART = new RegExp(`^${LOCAL_ATOM}(?:\\.${LOCAL_ATOM})*$`);
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A top-level label is letters (or an `xn--` international one), never all digits: `1.2.3.4` is no host name. */
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** RFC 5321's bounds: a path of at most 254 octets, a local part of at most 64. */
export const MAX_EMAIL_LENGTH = 254;

/** The address trimmed and in lower case (how emails are compared everywhere), or null when it is not one plain mailbox. */
export function parseEmailAddress(raw: string): string | null {
  if (raw.length > MAX_EMAIL_LENGTH + 64) return null;
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH) return null;
  const at = email.indexOf('@');
  if (at < 1 || at !== email.lastIndexOf('@')) return null;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return null;
  return TOP_LABEL.test(labels.at(-1)!) ? email : null;
}
