/**
 * What a method answers at once when it can decide from memory (the embedded stores, a cache hit) and
 * only later when it must ask a remote store. A caller that awaits it works either way; the request
 * path checks `isPromise` instead, so a decision made in memory costs no promise and no turn of the
 * microtask queue (issue 35: no awaits when nothing is remote).
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}
