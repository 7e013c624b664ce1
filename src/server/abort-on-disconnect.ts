import type { H3Event } from 'h3';

/** One AbortController per request, fired when the client goes away before the response finished. */
export function abortOnDisconnect(event: H3Event): AbortSignal {
  const controller = new AbortController();
  const res = event.node.res;
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
