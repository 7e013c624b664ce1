/**
 * The h3 app `router serve` listens with: the account app, HTML pages and docs (app/) answer first;
 * what they do not claim reaches the API router (http/); a browser asking for an address nothing
 * serves gets the HTML 404, anything else the API's JSON 404. Neither side imports the other: they
 * meet here.
 */
import { createApp, type App } from 'h3';
import { createBrowserNotFound, createWebHandler } from '../app/web-handler.js';
import { createApiRouter } from '../http/create-router-app.js';
import type { RouterRuntime } from './build-runtime.js';

export function createServerApp(runtime: RouterRuntime): App {
  const api = createApiRouter(runtime);
  const app = createApp(api.options);
  app.use(createWebHandler(runtime.app));
  app.use(api.router);
  app.use(createBrowserNotFound(runtime.app));
  app.use(api.notFound);
  return app;
}
