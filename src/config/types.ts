/**
 * The validated, frozen configuration passed down from the composition root. Its shape mirrors the
 * YAML files in config/ one to one (each file has a JSON Schema in schemas/). Secrets are Secret values.
 */
import type { Secret } from './secret.js';

export interface EdgeConfig {
  /** Reject requests without a descriptive User-Agent (Cloudflare-style code 1010). */
  enabled: boolean;
  /** Case-insensitive product tokens of bare library defaults, e.g. `python-requests`. */
  rejectUserAgents: readonly string[];
}

export interface RateLimitConfig {
  /** `memory`: per-instance windows; `redis`: windows shared by every instance (monthly counts stay in the store). */
  backend: 'memory' | 'redis';
  /** Required when backend is `redis` (usually `${ROUTER_REDIS_URL}`). */
  redisUrl?: string;
  /** Prefix of the Redis keys (default `rl:`), so deployments can share one Redis. */
  keyPrefix: string;
  /** Admit the monthly quota in a gate on blocks reserved in the store: Redis with backend `redis`, memory on SQLite (default true). */
  quotaGate: boolean;
}

/** The account web app (src/app/), mounted at appUrl's path. */
export interface AppConfig {
  enabled: boolean;
  /** `invite`: sign-up only through a link issued by `router accounts invite`. */
  signup: 'open' | 'invite';
  /** Plan a signed-up account starts on (Free: no card, no provider key). */
  signupPlan: string;
  /** How the app sends mail (reset and verification links, alerts, new sign-ins). */
  mail: MailConfig;
  /**
   * A new account confirms its email through a mailed link before its first key is shown (the default is
   * on exactly when mail is sent through SMTP).
   */
  requireEmailVerification: boolean;
  /** The alert sweep (src/alerts/): how often it checks accounts that had traffic, and the leaked-key signal. */
  alerts: { sweepSeconds: number; spikeMinRequests: number; spikeFactor: number };
  sessionIdleMinutes: number;
  sessionAbsoluteHours: number;
  /** Lifetime of invite and reset links (≤ 30). */
  linkMinutes: number;
  /** The operator's own terms and privacy notice: Markdown files, relative to the config directory. */
  legal: LegalPages;
}

export interface LegalPages {
  terms?: string;
  privacy?: string;
}
/**
 * `none`: no mail (links come from the CLI); `log`: each message is written to the server log instead
 * (development); `smtp`: sent through `smtpUrl` (`ROUTER_SMTP_URL`, STARTTLS where the server offers it).
 */
export interface MailConfig {
  transport: 'none' | 'log' | 'smtp';
  /** `smtp://user:pass@host:port` (or `smtps://`); required with transport `smtp`. */
  smtpUrl?: Secret;
  /** The From header of every message, e.g. `LLM Router <no-reply@example.com>`. */
  from: string;
}
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';
/** `auto`: pretty on a terminal, JSON lines otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

export interface ServerConfig {
  baseUrl: string;
  appUrl: string;
  docsUrl: string;
  supportUrl: string;
  /**
   * maxConnections bounds open client connections per worker (and so every queue behind them). workers:
   * 1 serves in one process; N > 1 or `auto` (one per available core) is cluster mode (docs/operations.md).
   */
  listen: { host: string; port: number; maxConnections: number; workers: number | 'auto' };
  /**
   * Reverse proxies (CIDRs or addresses, IPv4 and IPv6) whose X-Forwarded-For the account app believes
   * when it needs the client's address (sign-in throttle, sessions, audit); empty: the socket's peer.
   */
  trustedProxies: readonly string[];
  /** `sqlite:PATH` or `postgres://…`. */
  storage: string;
  rateLimit: RateLimitConfig;
  /** Keys the SHA-256 of API keys (HMAC) and encrypts stored provider keys. */
  secretKey?: Secret;
  bodyLimitBytes: number;
  edge: EdgeConfig;
  /** How long a verified key stays cached on an instance; the bound on cross-process revocation. */
  keyCacheTtlMs: number;
  /** Upper bound of a whole request, stream included. */
  requestTimeoutMs: number;
  app: AppConfig;
  /** On SIGTERM/SIGINT, how long in-flight requests may run on before the rest are ended. */
  shutdown: { drainTimeoutMs: number };
  logLevel: LogLevel;
  logFormat: LogFormat;
  ledger: LedgerConfig;
  metrics: MetricsConfig;
  billing: BillingConfig;
  tracing: TracingConfig;
}

/** Plans bought online (src/billing/, src/app/billing/). `none`: plans change only through the operator. */
export interface BillingConfig {
  provider: 'none' | 'stripe';
  /** Days a subscription whose payment failed (past_due) keeps its paid plan before the account drops to the sign-up plan. */
  pastDueGraceDays: number;
  stripe: {
    /** Required with provider `stripe` (a `${STRIPE_SECRET_KEY}` reference). */
    secretKey?: Secret;
    /** The signing secret of the webhook endpoint registered in Stripe (`whsec_…`). */
    webhookSecret?: Secret;
    /** Where the Stripe API is (default https://api.stripe.com); another address only for stripe-mock or tests. */
    apiUrl: string;
  };
}

export interface LedgerConfig {
  /** Off: no usage records and no spend metering (so managed access stays off). */
  enabled: boolean;
  /** Longest a finished request's record waits in memory: the worst-case loss on a hard crash. */
  flushIntervalMs: number;
  batchSize: number;
  /** Records held while the database falls behind; the bound past which BYOK records are dropped. */
  maxQueued: number;
  /** Days raw records are kept (rollups are kept). */
  retentionDays: number;
  /** `usage.cost` and `usage.cost_details` on every chat and Responses answer (the ledger's figure). */
  costInResponses: boolean;
}

/**
 * OpenTelemetry traces (src/tracing/, docs/operations.md#tracing). Off by default; OTEL_EXPORTER_OTLP_ENDPOINT
 * and the other standard OTEL_* variables set these (config/apply-env-overrides.ts).
 */
export interface TracingConfig {
  enabled: boolean;
  /** The OTLP/HTTP traces URL (JSON), e.g. http://collector:4318/v1/traces. */
  endpoint: string;
  serviceName: string;
  /** The standard OTEL_TRACES_SAMPLER names; `parentbased_*` follow a client's sampled flag. */
  sampler: 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';
  /** Share of new traces kept by the `*traceidratio` samplers (0 to 1). */
  sampleRatio: number;
  /** Spans held for export; past it new spans are dropped (never a wait on the request path). */
  maxQueueSize: number;
  /** How often queued spans are sent. */
  exportIntervalMs: number;
  /** Longest one export may take before it is abandoned (and logged). */
  exportTimeoutMs: number;
}

export interface MetricsConfig {
  enabled: boolean;
  /** When set, GET /metrics requires it as a bearer token. */
  token?: Secret;
}

export interface PlanConfig {
  id: string;
  name: string;
  monthlyRequests: number;
  requestsPerMinute: number;
  /** Model requests one account may have in flight at once (filled from requestsPerMinute when absent). */
  maxConcurrentRequests: number;
  /** Route profiles the plan may call; `router:fusion` the tool is allowed with `router/fusion`. */
  routeProfiles: readonly string[];
  priceUsdMonthly: number;
  /** Spend cap for operator-managed provider access (a resale control); absent = not resellable. */
  managedSpendCapUsd?: number;
  /** Most output tokens one request may ask for; a request that asks for none is given this cap. */
  maxOutputTokens?: number;
  /** The Stripe price a subscription to this plan uses (billing.provider `stripe`; required for paid plans then). */
  stripePriceId?: string;
  /**
   * Concrete catalog models (catalog.yaml `concreteModels`) the plan may call, as exact ids or `*` globs; `deny`
   * wins over `allow`. Absent: none.
   */
  models?: { allow: readonly string[]; deny: readonly string[] };
}

export interface RouteTarget {
  provider: string;
  model: string;
  /** Relative share inside its tier; default 1. */
  weight: number;
}

export interface RouteProfileConfig {
  id: string;
  family: string;
  description: string;
  /** Requests counted against the monthly quota per call (the contract's default is 1). */
  quotaWeight: number;
  /** Attempts after the first, across all tiers. */
  retryBudget: number;
  /** Ordered tiers; inside a tier targets are chosen by weight, then the rest of the tier is tried. */
  tiers: readonly (readonly RouteTarget[])[];
  /** Judged multi-model synthesis (routing/fusion/); its writer defaults to `tiers`. */
  fusion?: FusionConfig;
  /**
   * `tiers` (default): the YAML order. `measured`: every target ranked by live figures
   * (routing/measured-order.ts), with hysteresis; `sort` names the figure (default `latency`).
   */
  order?: 'tiers' | 'measured';
  sort?: MeasuredSort;
  /**
   * `auto`: cache breakpoints on the system prompt and tool list for Anthropic, and a conversation stays
   * on the provider holding its cache (routing/sticky-routing.ts). Absent or `off`: the client's own only.
   */
  promptCaching?: 'auto' | 'off';
  /**
   * Never in YAML: set on a request's narrowed copy of the route when the caller fixed the order itself
   * (`provider.order` or `provider.sort`, a `:nitro`/`:floor` suffix), so nothing reorders it, sticky
   * routing included (routing/provider-preferences.ts).
   */
  callerOrdered?: true;
}

/** What `order: measured` ranks by: time to first byte, or output tokens per second. */
export type MeasuredSort = 'latency' | 'throughput';

/** routes.yaml `aliases`: a model name (or `*` glob) other than a profile that reaches one on /v1/messages. */
export interface ModelAliasConfig {
  model: string;
  route: string;
}

/** One stage of a fusion: its targets, tried tier by tier with failover like a route's. */
export interface FusionStageConfig {
  tiers: readonly (readonly RouteTarget[])[];
}

/** `analyze-then-write`: a judge analyses, a writer answers. `judge-writes`: the judge's call writes the answer. */
export type FusionMode = 'analyze-then-write' | 'judge-writes';

export interface FusionConfig {
  mode: FusionMode;
  /** 2..8 members, asked in parallel. */
  panel: readonly FusionStageConfig[];
  /** Returns the structured analysis (schemas/fusion-analysis.schema.json). */
  judge: FusionStageConfig;
  /** Writes the final answer; the route's own tiers when absent. */
  writer?: FusionStageConfig;
  /** Fewer surviving panel answers than this fails the request (502 all_upstreams_failed). */
  minAnswers: number;
  /** A member still running after this is dropped. */
  panelTimeoutMs: number;
  /** Output cap of each panel call. */
  maxPanelOutputTokens: number;
  /** Streams: a keep-alive comment this often while nothing else is sent (panel and judge stages). */
  keepAliveMs: number;
  /** The `router:fusion` server tool: most fusion runs per request. */
  maxToolRounds: number;
}

export type ProviderFormat = 'openai' | 'anthropic' | 'gemini';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  /** Prompt tokens served from the provider's cache; `input` when absent. */
  cachedInput?: number;
  /** Prompt tokens written to the cache for 5 minutes (Anthropic: 1.25 × input); `input` when absent. */
  cacheWrite?: number;
  /** Prompt tokens written to the cache for one hour (Anthropic: 2 × input); `cacheWrite` when absent. */
  cacheWrite1h?: number;
  output: number;
  /** Reasoning tokens, where a provider prices them apart from the answer; `output` when absent. */
  reasoning?: number;
}

export interface ProviderTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}

export interface ProviderConfig {
  id: string;
  name: string;
  format: ProviderFormat;
  baseUrl: string;
  /** The operator's own credential, used only when managed access is enabled and ready. */
  managedKey?: Secret;
  /** OpenAI-compatible hosts only: the host serves `/responses` natively. */
  nativeResponses: boolean;
  /** The host accepts `stream_options.include_usage`. */
  streamUsage: boolean;
  /** OpenAI-compatible hosts: the host accepts `prompt_cache_key`; other hosts never get it. */
  promptCacheKey?: boolean;
  /** Which field carries the output cap for OpenAI-compatible hosts. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Default output cap where the format requires one (Anthropic). */
  defaultMaxTokens: number;
  timeouts: ProviderTimeouts;
  /** Extra static headers sent upstream (e.g. anthropic-version). */
  headers: Readonly<Record<string, string>>;
  /** Token prices per upstream model id (the usage ledger's cost, managed-access spend metering). */
  prices: Readonly<Record<string, ModelPrice>>;
  /** What the provider does with prompts; absent: undeclared, so no request that states a data policy goes there. */
  policy?: ProviderDataPolicy;
  /** Parameters this host refuses or ignores although its format carries them (provider.require_parameters skips it). */
  unsupportedParameters?: readonly string[];
}

/** A provider's data policy as its terms state it (providers.yaml `policy`). */
export interface ProviderDataPolicy {
  /** The provider may train on prompts and completions. */
  trainsOnPrompts: boolean;
  /** Days prompts are kept (abuse monitoring included); 0 is zero data retention. */
  retentionDays: number;
  /** Where requests are processed, e.g. `us`, `eu`. */
  region: string;
}

export interface CircuitBreakerConfig {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  cooldownMs: number;
}

export interface ManagedAccessConfig {
  /** Operator keys are used only when this is true AND every readiness check passes at start. */
  enabled: boolean;
}

export interface ProvidersFile {
  providers: readonly ProviderConfig[];
  circuitBreaker: CircuitBreakerConfig;
  managedAccess: ManagedAccessConfig;
}

export interface CatalogFamily {
  id: string;
  title: string;
  profile: string;
  description: string;
  capabilities: { streaming: boolean; tools: boolean; responses: boolean };
}

/** A model's published output limit (catalog.yaml `models`): output caps above it are lowered per candidate. */
export interface CatalogModel {
  provider: string;
  model: string;
  maxOutputTokens: number;
  /** The model reasons (catalog.yaml `reasoning`); absent: reasoning fields are dropped for it. */
  reasoning?: ModelReasoning;
}

/**
 * Thinking budget in tokens per reasoning effort (an absent one: requested-reasoning.ts's default);
 * `levels`: send Gemini 3's thinkingLevel instead. `{}` for a model that takes the effort by name (OpenAI).
 */
export interface ModelReasoning {
  minimal?: number;
  low?: number;
  medium?: number;
  high?: number;
  xhigh?: number;
  levels?: boolean;
}

export interface PricingConfig {
  currency: string;
  /** Per-plan marketing lines shown in /pricing. */
  features: Readonly<Record<string, readonly string[]>>;
}

/**
 * A concrete model offered as a model of its own (catalog.yaml `concreteModels`): a route profile over
 * the providers that serve it (`endpoints`, tried in order with failover), listed in /v1/models.
 */
export interface ConcreteModel {
  /** `vendor/model`, e.g. `openai/gpt-4.1`. */
  id: string;
  name: string;
  description: string;
  contextLength: number;
  /** Unix seconds of the model's release. */
  created: number;
  endpoints: readonly RouteTarget[];
  /** Attempts after the first; absent: one per further endpoint. */
  retryBudget?: number;
  order: 'tiers' | 'measured';
}

export interface RouterConfig {
  /** Directory the YAML was read from (for messages only). */
  dir: string;
  server: ServerConfig;
  plans: readonly PlanConfig[];
  routes: readonly RouteProfileConfig[];
  modelAliases: readonly ModelAliasConfig[];
  providers: ProvidersFile;
  catalog: { families: readonly CatalogFamily[]; models: readonly CatalogModel[]; concreteModels: readonly ConcreteModel[] };
  pricing: PricingConfig;
}
