import type { KeyService } from '../../accounts/key-service.js';
import type { Stage } from './stage.js';

/** Resolves the bearer key to an account; failures are the contract's guided 401s. */
export function createAuthenticateStage(keys: KeyService): Stage {
  return async (event, ctx) => {
    ctx.caller = await keys.verify(event.node.req.headers.authorization);
  };
}
