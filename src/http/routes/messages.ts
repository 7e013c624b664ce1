/** POST /v1/messages: Anthropic's Messages API over any upstream, as one Message or as Anthropic's event stream. */
import type { H3Event } from 'h3';
import type { MessagesRequest } from '../../formats/anthropic-messages.js';
import { splitHeaderList } from '../../core/split-header-list.js';
import { tokenUsageFromMessages } from '../../translators/messages/messages-token-usage.js';
import type { RouterDeps } from '../router-deps.js';
import type { AdmittedRequest, ServingRecord } from '../request-context.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { MessagesStreamEncoder } from '../encoders/messages-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { servedUsage } from '../encoders/served-usage.js';
import { serveFusionMessages } from '../fusion/serve-fusion-messages.js';
import { messagesServerTools } from '../../formats/server-tools.js';
import { prepareModelCall, recordAnswer, type OutputCap } from './model-call.js';

/**
 * `max_tokens` is required on this API and Claude Code asks for up to 128000: above the plan's
 * maxOutputTokens it is lowered to the cap rather than refused, since the client cannot pick another value.
 */
const CLAMP_OUTPUT_TOKENS: OutputCap = (body, plan) => {
  const cap = plan?.maxOutputTokens;
  if (cap !== undefined && (body as unknown as MessagesRequest).max_tokens > cap) body.max_tokens = cap;
};

export function createMessagesRoute(deps: RouterDeps) {
  return async (event: H3Event, admitted: AdmittedRequest, serving: ServingRecord): Promise<unknown> => {
    const { fusion, call } = await prepareModelCall(event, admitted, serving, deps, { capOutput: CLAMP_OUTPUT_TOKENS, serverTools: messagesServerTools });
    const request = admitted.body as unknown as MessagesRequest;
    const { 'anthropic-version': version, 'anthropic-beta': beta } = event.node.req.headers;
    const messages = { request, model: request.model, client: { version: typeof version === 'string' ? version : undefined, betas: splitHeaderList(beta) } };
    if (fusion) return serveFusionMessages(event, serving, deps, fusion, call, messages);
    if (request.stream === true) {
      const encoder = new MessagesStreamEncoder(streamTarget(event.node.res, serving, servedUsage(serving, deps), deps));
      await serveClientStream(encoder, () => deps.engine.streamMessages(call, messages), { stopped: deps.drain.deadline });
      return undefined;
    }
    const { value, meta } = await deps.engine.completeMessages(call, messages);
    // Anthropic's usage has no cost field: the same usage.cost and cost_details as chat, which its SDKs keep.
    recordAnswer(event, serving, deps, meta, { tokens: tokenUsageFromMessages(value.usage), finishReason: value.stop_reason ?? undefined, shownUsage: value.usage });
    return value;
  };
}
