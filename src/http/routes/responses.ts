/** POST /v1/responses: the Responses API over any upstream, as JSON or as a typed event stream. */
import type { H3Event } from 'h3';
import type { ResponsesRequest, ResponseUsage } from '../../formats/openai-responses.js';
import { tokenUsageFromResponses } from '../../translators/responses/responses-token-usage.js';
import { applyOutputTokenCap } from '../output-token-cap.js';
import type { RouterDeps } from '../router-deps.js';
import type { AdmittedRequest, ServingRecord } from '../request-context.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { ResponsesStreamEncoder, responseFinish } from '../encoders/responses-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { servedUsage } from '../encoders/served-usage.js';
import { serveFusionResponses } from '../fusion/serve-fusion-responses.js';
import { responsesServerTools } from '../../formats/server-tools.js';
import { prepareModelCall, recordAnswer, type OutputCap } from './model-call.js';

const RESPONSES_OUTPUT_CAP: OutputCap = (body, plan) => applyOutputTokenCap(body, plan, 'responses');

export function createResponsesRoute(deps: RouterDeps) {
  return async (event: H3Event, admitted: AdmittedRequest, serving: ServingRecord): Promise<unknown> => {
    const { fusion, call } = await prepareModelCall(event, admitted, serving, deps, { capOutput: RESPONSES_OUTPUT_CAP, serverTools: responsesServerTools });
    const request = admitted.body as unknown as ResponsesRequest;
    if (fusion) return serveFusionResponses(event, serving, deps, fusion, call, request);
    if (request.stream) {
      const encoder = new ResponsesStreamEncoder(streamTarget(event.node.res, serving, servedUsage(serving, deps), deps));
      await serveClientStream(encoder, () => deps.engine.streamResponses(call, request), { stopped: deps.drain.deadline });
      return undefined;
    }
    const { value, meta } = await deps.engine.completeResponses(call, request);
    const usage = value.usage as ResponseUsage | undefined;
    recordAnswer(event, serving, deps, meta, { tokens: tokenUsageFromResponses(usage, value.output), finishReason: responseFinish(value), shownUsage: usage });
    return value;
  };
}
