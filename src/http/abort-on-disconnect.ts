import type { H3Event } from 'h3';

/**
 * The connections with a request under each drain deadline. One listener on the deadline aborts them
 * all, rather than one listener added to and removed from it per request (EventTarget listeners cost
 * about 1% of the router's CPU per request that way).
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

/** What closes when the client goes away: the request's connection (the response, where a test's request has none). */
interface Watched {
  [CONTROLLER]?: AbortController;
  [LIVE]?: Set<AbortController>;
  destroyed?: boolean;
  on(event: 'close', listener: (this: Watched) => void): unknown;
}

/** One listener function for every connection (it finds its controller on the connection): no closure per connection. */
function onClose(this: Watched): void {
  const controller = this[CONTROLLER];
  if (!controller) return;
  this[LIVE]?.delete(controller);
  this[LIVE] = undefined;
  controller.abort();
}

/**
 * The signal that cancels a request's upstream work: it fires when the client's connection closes, or
 * when `deadline` fires (the instance's drain ran out of time).
 *
 * One AbortController per keep-alive connection, not per request (issue 35: its creation, the
 * response's close listener and the drain set's add and delete were about 2% of a chat request's CPU).
 * That is the same signal: on HTTP/1.1 a response cannot stop before its end without its connection
 * closing (the client left, or the router destroyed it), so the connection's close is the disconnect of
 * whichever request it carries (of each, for a client that pipelines). A request that finished
 * holds nothing on the signal by then (an upstream call removes its abort listener when it ends,
 * upstream/upstream-call.ts), so nothing piles up on a connection that serves many requests; nothing
 * may combine it with `AbortSignal.any` either (Node 20 keeps every combination's reference on the
 * source signal until the source is collected; fusion's panel links its own, routing/fusion/run-panel.ts).
 */
export function abortOnDisconnect(event: H3Event, deadline: AbortSignal): AbortSignal {
  const watched = (event.node.req.socket ?? event.node.res) as unknown as Watched;
  const watching = watched[CONTROLLER];
  if (watching) return watching.signal;
  const controller = new AbortController();
  watched[CONTROLLER] = controller;
  // Gone already (the client left while the request was admitted): its close was before this listener.
  if (deadline.aborted || watched.destroyed) {
    controller.abort();
    return controller.signal;
  }
  const live = liveUnder(deadline);
  live.add(controller);
  watched[LIVE] = live;
  watched.on('close', onClose);
  return controller.signal;
}
