/**
 * Keeping provider credentials out of everything the router returns or logs. Two layers: the exact
 * credential an attempt used (the only reliable one: a key can look like anything), and key-shaped
 * tokens (for keys the router did not send, such as a host quoting another key it knows).
 */

export const REDACTED = '[redacted]';

/** Shorter values are not credentials, and replacing them would garble ordinary text. */
const MIN_SECRET_LENGTH = 8;

/**
 * A function that replaces every occurrence of the given secrets in a text: verbatim, URL-encoded
 * (`Bearer%20sk-…` in a quoted URL or header dump), and JSON-escaped (inside a JSON string).
 */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH).flatMap(formsOf))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
    return out;
  };
}

function formsOf(secret: string): string[] {
  return [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
}

/**
 * Key-shaped tokens: OpenAI-style `sk-…` (also `sk-proj-`, `sk-ant-` for Anthropic), Groq `gsk_`, xAI
 * `xai-`, `pk_`/`rk_`, and Google `AIza…`. A token counts when no letter or digit precedes it, or when
 * a percent-escape does (`Bearer%20sk-…`, where `\b` would not see a boundary after the `0`).
 */
const KEY_LIKE = /(?:(?<=%[0-9A-Fa-f]{2})|(?<![A-Za-z0-9]))(?:(?:sk|gsk|xai|pk|rk)[-_][\w*-]{4,}|AIza[\w-]{10,})/g;

export function redactKeyLikeTokens(text: string): string {
  return text.replace(KEY_LIKE, REDACTED);
}
