import type { H3Event } from 'h3';

/**
 * The requests still running under each drain deadline. One listener on the deadline aborts them all,
 * rather than one listener added to and removed from it per request (EventTarget listeners cost about
 * 1% of the router's CPU per request that way).
 */
const liveByDeadline = new WeakMap<AbortSignal, Set<AbortController>>();

function liveUnder(deadline: AbortSignal): Set<AbortController> {
  let live = liveByDeadline.get(deadline);
  if (!live) {
    const controllers = new Set<AbortController>();
    deadline.addEventListener(
      'abort',
      () => {
        for (const controller of controllers) controller.abort();
        controllers.clear();
      },
      { once: true },
    );
    liveByDeadline.set(deadline, (live = controllers));
  }
  return live;
}

const CONTROLLER = Symbol('router.disconnectController');
const LIVE = Symbol('router.disconnectLive');
type WatchedResponse = H3Event['node']['res'] & { [CONTROLLER]?: AbortController; [LIVE]?: Set<AbortController> };

/**
 * One listener function for every response (it finds its controller on the response) rather than a
 * closure and `once`'s wrapper made per request: a response closes once.
 */
function onResponseClose(this: WatchedResponse): void {
  const controller = this[CONTROLLER];
  if (!controller) return;
  this[CONTROLLER] = undefined;
  this[LIVE]?.delete(controller);
  if (!this.writableFinished) controller.abort();
}

/**
 * One AbortController per request, fired when the client goes away before the response finished, or
 * when `deadline` fires (the instance's drain ran out of time): either way the upstream is cancelled.
 */
export function abortOnDisconnect(event: H3Event, deadline: AbortSignal): AbortSignal {
  const res = event.node.res as WatchedResponse;
  // Asked twice for one response: the same disconnect, so the same signal.
  const watching = res[CONTROLLER];
  if (watching) return watching.signal;
  const controller = new AbortController();
  if (deadline.aborted) {
    controller.abort();
    return controller.signal;
  }
  const live = liveUnder(deadline);
  live.add(controller);
  res[CONTROLLER] = controller;
  res[LIVE] = live;
  res.on('close', onResponseClose);
  return controller.signal;
}
