/**
 * The one place a key's kind is judged. A management key manages keys (and presets) and never calls a
 * model: model routes refuse it before anything is counted. Management routes admit nothing else. Both
 * refusals are 403s with their own codes, so a client learns which key it should have sent.
 */
import { RouterError } from '../../core/errors.js';
import type { Authenticated } from '../request-context.js';
import type { Stage } from './stage.js';

/** On model routes (chat, Responses, Messages, token counts): a management key is refused. */
export const refuseManagementKey: Stage<Authenticated> = (_event, request) => {
  if (request.caller.management) {
    throw new RouterError(
      'management_key_not_allowed',
      'This is a management key: it manages keys (/v1/keys) and cannot call models. Send an ordinary API key to call a model.',
    );
  }
};

/** On management routes (/v1/keys, presets): only a management key is admitted. */
export const requireManagementKey: Stage<Authenticated> = (_event, request) => {
  if (!request.caller.management) {
    throw new RouterError(
      'management_key_required',
      'This endpoint manages keys and needs a management key. Create one on the keys page (a management key) or with `router keys create --account <id> --management`, and send it instead.',
    );
  }
};
