import type { EdgeConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import type { H3Event } from 'h3';

/**
 * The edge rule (code 1010): a client must say who it is. An absent or empty User-Agent, or one whose
 * product token is a bare HTTP-library default, is rejected before authentication.
 */
/** Synchronous, so public routes can apply it too. */
export function createEdgeUserAgentStage(edge: EdgeConfig): (event: H3Event) => void {
  const rejected = new Set(edge.rejectUserAgents.map((token) => token.toLowerCase()));
  return (event) => {
    if (!edge.enabled) return;
    const userAgent = event.node.req.headers['user-agent']?.trim() ?? '';
    const product = userAgent.split(/[\s/]/, 1)[0]?.toLowerCase() ?? '';
    if (userAgent === '' || rejected.has(product)) {
      throw new RouterError(
        '1010',
        'Requests must carry a descriptive User-Agent (for example "my-app/1.2 (contact@example.com)"). Bare HTTP-library defaults are rejected (code 1010); the official SDKs pass.',
      );
    }
  };
}
