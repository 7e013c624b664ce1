/**
 * What the upstream HTTP client sends: built by a provider adapter, sent by upstream-client.ts. The URL
 * always starts with the provider's configured baseUrl.
 */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}
