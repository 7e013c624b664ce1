/**
 * Body fields that SDKs and gateways (LiteLLM, LangChain, Azure and Bedrock wrappers, proxies) read as
 * instructions to send a request somewhere else or with other credentials. An OpenAI-compatible host
 * ignores them or rejects the request, but a gateway or self-hosted server in front of a provider may
 * honour them; where a request goes and with which key is the router's decision alone (configuration
 * and the account's credential), so these never leave it. They are dropped rather than refused: SDK
 * wrappers send some of them by default. The list is documented in docs/providers/openai.md.
 */
export const REDIRECTING_FIELDS: ReadonlySet<string> = new Set([
  // Where to send it.
  'api_base',
  'base_url',
  'api_type',
  'api_version',
  'azure_endpoint',
  'azure_deployment',
  'deployment_id',
  'engine',
  'custom_llm_provider',
  'vertex_project',
  'vertex_location',
  'aws_region_name',
  // With what credentials or headers.
  'api_key',
  'extra_headers',
  'extra_query',
  'extra_body',
  'headers',
  'organization',
  'project',
  'azure_ad_token',
  'vertex_credentials',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
]);
