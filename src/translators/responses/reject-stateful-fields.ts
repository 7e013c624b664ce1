/**
 * The router keeps no response store, so a Responses request that points at server-side state cannot be
 * answered as asked, on any route: ignoring the field would answer a different question, and passing it
 * to a native Responses host would bill the account for the host's "not found". It is refused with 400
 * `invalid_request` naming the field, before the request is admitted (so it never counts).
 */
import { RouterError } from '../../core/errors.js';

const RESEND = 'resend the whole conversation in `input` (the router is stateless)';

/** Top-level fields that name stored state, and what to send instead. */
const STATEFUL_FIELDS: ReadonlyArray<readonly [field: string, instead: string]> = [
  ['previous_response_id', RESEND],
  ['conversation', RESEND],
  ['prompt', 'send `instructions` and `input` instead of a stored prompt'],
];

export function rejectStatefulFields(body: Record<string, unknown>): void {
  for (const [field, instead] of STATEFUL_FIELDS) {
    if (body[field] != null) throw new RouterError('invalid_request', `${field} is not supported: ${instead}.`, { param: field });
  }
  if (body.background === true) {
    throw new RouterError('invalid_request', 'background is not supported: responses are not stored, so they cannot be polled; send the request without it.', {
      param: 'background',
    });
  }
  if (Array.isArray(body.input)) {
    body.input.forEach((item, index) => {
      if ((item as { type?: unknown } | null)?.type === 'item_reference') throw itemReferenceError(`input[${index}]`);
    });
  }
}

/** An input item that points at a stored item; `param` names it, e.g. `input[3]`. */
export function itemReferenceError(param: string): RouterError {
  return new RouterError('invalid_request', `${param}: item_reference is not supported because the router stores no items; send the item itself.`, { param });
}
