import type { H3Event } from 'h3';

/**
 * One AbortController per request, fired when the client goes away before the response finished, or
 * when `deadline` fires (the instance's drain ran out of time): either way the upstream is cancelled.
 */
export function abortOnDisconnect(event: H3Event, deadline: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const res = event.node.res;
  const stop = () => controller.abort();
  if (deadline.aborted) stop();
  else deadline.addEventListener('abort', stop, { once: true });
  res.once('close', () => {
    deadline.removeEventListener('abort', stop);
    if (!res.writableFinished) stop();
  });
  return controller.signal;
}
