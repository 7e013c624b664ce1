/** Where the account app and the docs live, derived once from appUrl and docsUrl. */
import type { ServerConfig } from '../config/types.js';

export interface WebPaths {
  /** Path prefix of the account app, e.g. `/app` (no trailing slash; '' when at the root). */
  app: string;
  docs: string;
  /** Origin browsers send in `Origin` for the app's own forms. */
  appOrigin: string;
  /** The app is served over https: cookies get `__Host-` and Secure. */
  secure: boolean;
  /** Absolute URL of an app page. */
  appUrl(path?: string): string;
  docsUrl(path?: string): string;
}

export function webPaths(server: ServerConfig): WebPaths {
  const app = new URL(server.appUrl);
  const docs = new URL(server.docsUrl);
  const trim = (path: string) => path.replace(/\/+$/, '');
  return {
    app: trim(app.pathname),
    docs: trim(docs.pathname),
    appOrigin: app.origin,
    secure: app.protocol === 'https:',
    appUrl: (path = '') => `${server.appUrl}${path}`,
    docsUrl: (path = '') => `${server.docsUrl}${path}`,
  };
}
