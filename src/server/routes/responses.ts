/** POST /v1/responses: the Responses API over any upstream, as JSON or as a typed event stream. */
import type { H3Event } from 'h3';
import type { ResponsesRequest } from '../../formats/openai-responses.js';
import type { RoutedMeta } from '../../routing/failover.js';
import type { ResponsesOutEvent, ResponsesStreamOutcome } from '../../routing/responses-attempts.js';
import { abortOnDisconnect } from '../abort-on-disconnect.js';
import { authorizeRoute } from '../authorize-route.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { relayCommittedStream } from '../relay-committed-stream.js';
import { SseWriter } from '../sse-writer.js';
import { routingHeaders, setRoutingHeaders } from './routing-headers.js';

export function createResponsesRoute(deps: RouterDeps) {
  return async (event: H3Event, ctx: RouterRequestContext): Promise<unknown> => {
    const route = authorizeRoute(ctx);
    const request = ctx.body as unknown as ResponsesRequest;
    const call = { route, accountId: ctx.caller!.accountId, signal: abortOnDisconnect(event) };
    if (request.stream) {
      const { value, meta } = await deps.engine.streamResponses(call, request);
      await writeResponsesStream(event, value, meta);
      return undefined;
    }
    const { value, meta } = await deps.engine.completeResponses(call, request);
    setRoutingHeaders(event.node.res, meta);
    return value;
  };
}

async function writeResponsesStream(event: H3Event, stream: ResponsesStreamOutcome, meta: RoutedMeta): Promise<void> {
  const writer = new SseWriter(event.node.res);
  writer.open(routingHeaders(meta));
  const send = (item: ResponsesOutEvent) => writer.send(item, item.type);
  const failure = await relayCommittedStream(writer, stream, send);
  if (failure) {
    // End with response.failed, never a silent close (Codex retries a silent close). Codex acts on these two codes.
    const code = failure.code === 'rate_limit_exceeded' || failure.code === 'context_length_exceeded' ? failure.code : 'server_error';
    const events = stream.fail({
      code,
      message: failure.message,
      ...(failure.retryAfterSeconds !== undefined ? { retryAfterSeconds: failure.retryAfterSeconds } : {}),
    });
    for (const item of events) await send(item);
  }
  writer.end();
}
