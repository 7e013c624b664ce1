import { isRecord } from './is-record.js';

/**
 * Shows the route profile name instead of the upstream model in a native Responses answer: the
 * Response object itself (`object: "response"`) and every stream event that embeds one in `response`
 * (created, in_progress, completed, incomplete, failed…). Other events pass unchanged. Returns a copy
 * when something changed; the input is never mutated.
 */
export function rewriteResponsesModel<T>(json: T, model: string): T {
  if (!isRecord(json)) return json;
  if (json.object === 'response') return { ...json, model };
  if (isRecord(json.response)) return { ...json, response: { ...json.response, model } };
  return json;
}
