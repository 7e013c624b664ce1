/**
 * Where sign-in returns a person to: the page they asked for while signed out, if it is a plain path
 * of this app (`/app/...`). Anything else (another origin, `//host`, a backslash, a scheme, control
 * characters, the sign-in page itself) is refused, so the parameter can never send anyone off-site.
 */
export function safeReturnPath(appPath: string, value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) return null;
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(value)) return null;
  const base = 'http://return-to.invalid';
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  const inApp = appPath === '' || url.pathname === appPath || url.pathname.startsWith(`${appPath}/`);
  if (!inApp || url.pathname === `${appPath}/signin`) return null;
  return url.pathname + url.search;
}
