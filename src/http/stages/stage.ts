import type { H3Event } from 'h3';
import type { RouterRequestContext } from '../request-context.js';

/** One step of the /v1 pipeline. Throws a RouterError to end the request; otherwise enriches ctx. */
export type Stage = (event: H3Event, ctx: RouterRequestContext) => void | Promise<void>;

/** Names a stage for its span (`router.<name>`, server/v1-pipeline.ts); stages are made once per app. */
export function namedStage<S extends Stage>(name: string, stage: S): S {
  return Object.defineProperty(stage, 'name', { value: name });
}
