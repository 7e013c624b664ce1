/**
 * The one way an absolute link (the header's, "Ask for Pro", a mailed link, a CLI-printed one, an error's
 * accountUrl) is built: from the configured baseUrl, appUrl, docsUrl and supportUrl, or, where one of them
 * is a loopback address, from the loopback name the person is actually using.
 *
 * Why: a browser keeps cookies per host name, so a person who opened http://127.0.0.1:8787/app (the
 * address the README and the start-up log give) and followed a link to http://localhost:8787/… arrives
 * signed out. The Host header is trusted only within the rules the CSRF check already has (app/csrf.ts):
 * a loopback configured URL accepts the other loopback names at the same scheme and port, which reach the
 * same process on this machine only. A non-loopback URL is always used as configured: a Host header there
 * could be anyone's, and a reset link mailed to another host would hand its token away.
 */
import type { ServerConfig } from './types.js';

export interface PublicLinks {
  baseUrl: string;
  /** `{baseUrl}/v1`, what clients are pointed at. */
  apiBase: string;
  appUrl: string;
  docsUrl: string;
  supportUrl: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The links for a request that arrived with this Host header (none: the CLI, a background job). */
export function publicLinks(server: Pick<ServerConfig, 'baseUrl' | 'appUrl' | 'docsUrl' | 'supportUrl'>, host?: string | null): PublicLinks {
  const usedName = loopbackNameOf(host);
  const at = (configured: string) => (usedName === null ? configured : onLoopbackName(configured, usedName));
  const baseUrl = at(server.baseUrl);
  return { baseUrl, apiBase: `${baseUrl}/v1`, appUrl: at(server.appUrl), docsUrl: at(server.docsUrl), supportUrl: at(server.supportUrl) };
}

/** The loopback name and port of a Host header (`127.0.0.1:8787` → { name, port }), or null for anything else. */
function loopbackNameOf(host: string | null | undefined): { name: string; port: string } | null {
  if (!host) return null;
  const match = /^(\[::1\]|localhost|127\.0\.0\.1)(?::(\d{1,5}))?$/i.exec(host.trim());
  return match ? { name: match[1]!.toLowerCase(), port: match[2] ?? '' } : null;
}

/** The configured URL under the name in use, when it is a loopback URL at the same port; else as it is. */
function onLoopbackName(configured: string, used: { name: string; port: string }): string {
  let url: URL;
  try {
    url = new URL(configured);
  } catch {
    return configured;
  }
  if (!LOOPBACK_NAMES.has(url.hostname) || url.hostname === used.name) return configured;
  // URL leaves out a scheme's default port, as a Host header does.
  if (url.port !== used.port) return configured;
  return configured.replace(/^(https?:\/\/)[^/?#]+/i, `$1${used.name}${url.port ? `:${url.port}` : ''}`);
}
