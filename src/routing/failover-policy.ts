/**
 * Which upstream outcomes move on to the next candidate. The specification's triggers (401, 429, 502,
 * 503, 504) plus every other 5xx (500, Anthropic's 529, which its adapter maps to 503), connection
 * errors and timeouts, and 403: every provider answers it to a key that may not do what was asked
 * (OpenAI's project permissions, Anthropic's permission_error, Gemini's PERMISSION_DENIED), which is
 * the key's fault like a 401, not the request's, and another provider's key may serve. 402 (Anthropic's
 * billing_error: the provider account has no credit) is the account's too, like OpenAI's 429
 * insufficient_quota. 404 too: the caller named a route profile or model of the router's, and the host
 * lacking the endpoint or no longer serving its upstream model is that host's gap, not the request's
 * fault, when another candidate can serve it (a 404 is answered before anything is committed). Any
 * other 4xx is the client's fault and goes back to the client as it is.
 */
const FAILOVER_4XX = new Set([401, 402, 403, 404, 429]);

export function shouldFailOver(status: number): boolean {
  return status >= 500 || FAILOVER_4XX.has(status);
}

/**
 * A host that lacks the endpoint or the model (404) answered, and said so of one model only: it moves on
 * to the next candidate but is no verdict on the provider's health (its other models may be served) nor
 * on the key. When every attempt made found nothing, the client gets that 404 as before, not a 502 an
 * SDK would retry at once.
 */
export function isMissingAtHost(status: number): boolean {
  return status === 404;
}
