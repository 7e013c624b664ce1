/**
 * Which upstream outcomes move on to the next candidate. The specification's triggers (401, 429, 502,
 * 503, 504) plus every other 5xx (500, Anthropic's 529, which its adapter maps to 503), connection
 * errors and timeouts, and 403: every provider answers it to a key that may not do what was asked
 * (OpenAI's project permissions, Anthropic's permission_error, Gemini's PERMISSION_DENIED), which is
 * the key's fault like a 401, not the request's, and another provider's key may serve. 402 (Anthropic's
 * billing_error: the provider account has no credit) is the account's too, like OpenAI's 429
 * insufficient_quota. Any other 4xx is the client's fault and goes back to the client as it is.
 */
const FAILOVER_4XX = new Set([401, 402, 403, 429]);

export function shouldFailOver(status: number): boolean {
  return status >= 500 || FAILOVER_4XX.has(status);
}
