/**
 * The routes a router serves, as they are added: the contract test compares them with the OpenAPI
 * registry (every /v1 route documented). h3's router keeps its table private; its method shortcuts
 * (`get`, `post`, …) all add through `router.add`, which this wraps. Catch-alls added with `use` are
 * not routes of their own and are not recorded.
 */
import type { Router } from 'h3';

export interface ServedRoute {
  /** Upper case (`GET`). */
  method: string;
  /** As h3 was given it (`/v1/keys/:hash`, `/v1/models/**`). */
  path: string;
}

export function recordRoutes(router: Router): { router: Router; routes: readonly ServedRoute[] } {
  const routes: ServedRoute[] = [];
  const add = router.add;
  router.add = ((path: string, handler: Parameters<Router['add']>[1], method?: string | string[]) => {
    for (const one of [method ?? 'all'].flat()) if (one !== 'all') routes.push({ method: one.toUpperCase(), path });
    return add(path, handler, method as Parameters<Router['add']>[2]);
  }) as Router['add'];
  return { router, routes };
}

/** A served path in OpenAPI's template form: `:name` → `{name}`, a trailing `/**` (a model id with slashes) → `/{id}`. */
export function templateOf(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\/\*\*$/, '/{id}');
}
