import type { H3Event } from 'h3';
import type { Received } from '../request-context.js';

/**
 * One step of the /v1 admission. It reads what earlier stages established (`Needs`) and throws a
 * RouterError to end the request; otherwise it sets what it establishes (`Adds`) on the request's one
 * object and returns that object (a promise of it) typed as `Adds`. A stage that finishes synchronously
 * (the edge rule, a key found in the cache) returns nothing, its facts set all the same, and so costs
 * no promise and no await.
 */
export type Stage<Needs, Adds = unknown> = (event: H3Event, request: Needs) => void | Promise<Adds>;

/** A stage as the pipeline stores it, whatever it needs (the list's types checked it when it was built). */
export type AnyStage = Stage<never, unknown>;

/** What a stage adds to the list's type: nothing for one that returns no fact. */
type Added<Adds> = [Adds] extends [void] ? unknown : Adds;

/**
 * The ordered stages of one kind of /v1 request, made once at startup. `then` accepts only a stage whose
 * needs the stages so far have established, so the order is checked by the compiler; the pipeline runs
 * `stages` as the array it is, and hands the route the `Established` request.
 */
export class AdmissionList<Established> {
  private constructor(readonly stages: readonly AnyStage[]) {}

  static start(): AdmissionList<Received> {
    return new AdmissionList<Received>([]);
  }

  then<Adds>(stage: Stage<Established, Adds>): AdmissionList<Established & Added<Adds>> {
    return new AdmissionList<Established & Added<Adds>>([...this.stages, stage]);
  }
}

/** Every /v1 request's admission starts from its arrival (request id, start time, trace). */
export function admission(): AdmissionList<Received> {
  return AdmissionList.start();
}

/** Names a stage for its span (`router.<name>`, pipeline.ts); stages are made once per app. */
export function namedStage<S extends (...args: never[]) => unknown>(name: string, stage: S): S {
  return Object.defineProperty(stage, 'name', { value: name });
}
