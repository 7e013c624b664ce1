/**
 * Every link a newcomer is given must open: each http(s) URL in the guided errors and in /pricing
 * (the account page, onboarding steps, docs, checkout) must answer 2xx, after redirects. API base
 * addresses (`apiBaseUrl`, an onboarding step's `baseUrl`) are endpoints, not pages, and are left out.
 */
import { probeFetch } from './probe-http.js';
import { expectThat, type ProbeSession } from './probe-session.js';
import type { PublicDocuments } from './public-checks.js';

const API_BASE_FIELDS = new Set(['apiBaseUrl', 'baseUrl']);

/** URLs in a JSON document with the field each was found in, first occurrence wins. */
export function linksIn(document: unknown, where: string, into = new Map<string, string>(), field = ''): Map<string, string> {
  if (typeof document === 'string') {
    if (/^https?:\/\//.test(document) && !API_BASE_FIELDS.has(field)) {
      const url = document.split('#')[0]!;
      if (!into.has(url)) into.set(url, `${where} ${field}`.trim());
    }
  } else if (Array.isArray(document)) {
    for (const item of document) linksIn(item, where, into, field);
  } else if (document !== null && typeof document === 'object') {
    for (const [key, value] of Object.entries(document)) linksIn(value, where, into, key);
  }
  return into;
}

export async function runLinkChecks(session: ProbeSession, documents: PublicDocuments): Promise<void> {
  const links = new Map<string, string>();
  for (const error of documents.guidedErrors) linksIn(error, 'guided 401', links);
  if (documents.pricing !== undefined) linksIn(documents.pricing, '/pricing', links);
  if (links.size === 0) {
    session.skip('links', 'onboarding links resolve', 'no guided error or /pricing document was read');
    return;
  }
  for (const [url, where] of links) {
    await session.check('links', `link resolves: ${url}`, async () => {
      const r = await probeFetch({ url });
      expectThat(r.status >= 200 && r.status < 300, `2xx for the link in ${where}`, r);
      return `${r.status} (${where})`;
    });
  }
}
