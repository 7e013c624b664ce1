import type { EdgeConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import type { H3Event } from 'h3';

/**
 * A descriptive User-Agent names a product and its version: its first word is `product/version`
 * (`curl/8.5.0`, `OpenAI/JS 6.9.1`, `codex_cli_rs/0.46.0 (…)`, `ai-sdk/openai/2.0.30 …`) and it carries a
 * version number somewhere. `-`, `curl` or Node's bare `node` say nothing about who is calling.
 */
const PRODUCT_AND_VERSION = /^[A-Za-z0-9!#$%&'*+.^_`|~-]*[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*\/\S+/;
const VERSION_NUMBER = /\d/;

/**
 * The edge rule (code 1010): a client must say who it is. A User-Agent that does not name a product and
 * version, or whose product is a bare HTTP-library or runtime default (edge.rejectUserAgents), is
 * rejected before authentication. Synchronous, so public routes can apply it too.
 */
export function createEdgeUserAgentStage(edge: EdgeConfig): (event: H3Event) => void {
  const rejected = new Set(edge.rejectUserAgents.map((token) => token.toLowerCase()));
  return (event) => {
    if (!edge.enabled) return;
    const userAgent = event.node.req.headers['user-agent']?.trim() ?? '';
    const slash = userAgent.indexOf('/');
    const product = (slash < 0 ? userAgent : userAgent.slice(0, slash)).toLowerCase();
    if (!PRODUCT_AND_VERSION.test(userAgent) || !VERSION_NUMBER.test(userAgent) || rejected.has(product)) {
      throw new RouterError(
        '1010',
        'Requests must carry a descriptive User-Agent naming your product and its version (for example "my-app/1.2 (contact@example.com)"). Bare HTTP-library and runtime defaults are rejected (code 1010); the official SDKs, curl and the common agent tools pass.',
      );
    }
  };
}
