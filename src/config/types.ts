/**
 * The validated, frozen configuration passed down from the composition root. Each file's shape comes
 * from its schema (schemas/<file>-file.ts, the single definition behind schemas/*.json), so a field
 * added to a schema is in these types; what differs here is only what assembly changes (secrets
 * become Secret values, URLs that default from others are filled, arrays are read-only once frozen).
 * Field meanings are the schemas' `description`s.
 */
import type { RawCatalogFile } from './schemas/catalog-file.js';
import type { RawPlansFile } from './schemas/plans-file.js';
import type { RawPricingFile } from './schemas/pricing-file.js';
import type { RawProvidersFile } from './schemas/providers-file.js';
import type { RawRoutesFile } from './schemas/routes-file.js';
import type { RawServerFile } from './schemas/server-file.js';
import type { Secret } from './secret.js';

/** deep-freeze.ts freezes the assembled config, so its arrays are read-only all the way down. */
type Frozen<T> = T extends Secret
  ? T
  : T extends readonly (infer Item)[]
    ? readonly Frozen<Item>[]
    : T extends object
      ? { [Key in keyof T]: Frozen<T[Key]> }
      : T;

type RawApp = RawServerFile['app'];
type RawPlan = RawPlansFile['plans'][number];
type RawRoute = RawRoutesFile['routes'][number];
type RawProvider = RawProvidersFile['providers'][number];

/** Reject requests without a descriptive User-Agent (Cloudflare-style code 1010). */
export type EdgeConfig = Frozen<RawServerFile['edge']>;
export type RateLimitConfig = RawServerFile['rateLimit'];

/** `none`: no mail (links come from the CLI); `log`: the server log (development); `smtp`: through `smtpUrl`. */
export type MailConfig = Omit<RawApp['mail'], 'smtpUrl'> & { smtpUrl?: Secret };
/** The operator's own terms and privacy notice: Markdown files, relative to the config directory. */
export type LegalPages = RawApp['legal'];
/** The account web app (src/app/), mounted at appUrl's path. requireEmailVerification is settled from mail's transport. */
export type AppConfig = Omit<RawApp, 'mail' | 'requireEmailVerification'> & { mail: MailConfig } & Required<Pick<RawApp, 'requireEmailVerification'>>;

export type LogLevel = RawServerFile['logLevel'];
/** `auto`: pretty on a terminal, JSON lines otherwise. */
export type LogFormat = RawServerFile['logFormat'];

/** Plans bought online (src/billing/, src/app/billing/). `none`: plans change only through the operator. */
export type BillingConfig = Omit<RawServerFile['billing'], 'stripe'> & {
  stripe: Omit<RawServerFile['billing']['stripe'], 'secretKey' | 'webhookSecret'> & { secretKey?: Secret; webhookSecret?: Secret };
};
export type LedgerConfig = RawServerFile['ledger'];
/** OpenTelemetry traces (src/tracing/); the standard OTEL_* variables set these (config/apply-env-overrides.ts). */
export type TracingConfig = RawServerFile['tracing'];
/** GET /metrics; with a token it requires it as a bearer token. */
export type MetricsConfig = Omit<RawServerFile['metrics'], 'token'> & { token?: Secret };

/** The URLs that default from one another are all filled, and secrets are wrapped. */
export type ServerConfig = Frozen<Omit<RawServerFile, 'baseUrl' | 'appUrl' | 'docsUrl' | 'supportUrl' | 'secretKey' | 'metrics' | 'billing' | 'app'>> &
  Required<Pick<RawServerFile, 'baseUrl' | 'appUrl' | 'docsUrl' | 'supportUrl'>> & {
    secretKey?: Secret;
    app: AppConfig;
    metrics: MetricsConfig;
    billing: BillingConfig;
  };

/** maxConcurrentRequests is filled from requestsPerMinute when absent; `models` absent means none; cacheHitsCountAgainstQuota absent counts hits. */
export type PlanConfig = Frozen<
  Omit<RawPlan, 'maxConcurrentRequests' | 'models' | 'cacheHitsCountAgainstQuota'> & Required<Pick<RawPlan, 'maxConcurrentRequests'>> & Partial<Pick<RawPlan, 'models' | 'cacheHitsCountAgainstQuota'>>
>;

export type RouteTarget = RawRoute['tiers'][number][number];

/**
 * A route profile. `order`, `sort` and `promptCaching` may be absent on routes built in code (a concrete
 * model's, a request's narrowed copy).
 */
export type RouteProfileConfig = Frozen<Omit<RawRoute, 'order' | 'sort' | 'promptCaching'> & Partial<Pick<RawRoute, 'order' | 'sort' | 'promptCaching'>>> & {
  /**
   * Never in YAML: set on a request's narrowed copy of the route when the caller fixed the order itself
   * (`provider.order` or `provider.sort`, a `:nitro`/`:floor` suffix), so nothing reorders it, sticky
   * routing included (routing/provider-preferences.ts).
   */
  callerOrdered?: true;
  /** A concrete model's kind (catalog.yaml `kind`); absent: chat (every routes.yaml profile). */
  kind?: ModelKind;
  /** An embedding model's vectors (catalog.yaml `embedding`). */
  embedding?: EmbeddingShape;
};

/** What a model does, and so the one endpoint that serves it: chat APIs, /v1/embeddings or /v1/rerank. */
export type ModelKind = ConcreteModel['kind'];
/** The vectors an embedding model returns: default length, and whether shorter ones may be asked for. */
export type EmbeddingShape = NonNullable<ConcreteModel['embedding']>;

/** What `order: measured` ranks by: time to first byte, or output tokens per second. */
export type MeasuredSort = RawRoute['sort'];

/** routes.yaml `aliases`: a model name (or `*` glob) other than a profile that reaches one on /v1/messages. */
export type ModelAliasConfig = NonNullable<RawRoutesFile['aliases']>[number];

/** Judged multi-model synthesis (routing/fusion/); its writer defaults to the route's tiers. */
export type FusionConfig = Frozen<NonNullable<RawRoute['fusion']>>;
/** One stage of a fusion: its targets, tried tier by tier with failover like a route's. */
export type FusionStageConfig = FusionConfig['judge'];
/** `analyze-then-write`: a judge analyses, a writer answers. `judge-writes`: the judge's call writes the answer. */
export type FusionMode = FusionConfig['mode'];

export type ProviderFormat = RawProvider['format'];
/** USD per million tokens. */
export type ModelPrice = RawProvider['prices'][string];
export type ProviderTimeouts = RawProvider['timeouts'];
/** A provider's data policy as its terms state it; absent: undeclared. */
export type ProviderDataPolicy = NonNullable<RawProvider['policy']>;

/**
 * managedKey is wrapped; promptCacheKey, embeddings and rerank may be absent on providers built in code (absent: false). unsupportedParameters
 * is read against a request's field names, so it is typed as the strings those are.
 */
export type ProviderConfig = Frozen<
  Omit<RawProvider, 'managedKey' | 'promptCacheKey' | 'embeddings' | 'rerank' | 'unsupportedParameters'> & Partial<Pick<RawProvider, 'promptCacheKey' | 'embeddings' | 'rerank'>>
> & {
  managedKey?: Secret;
  unsupportedParameters?: readonly string[];
};

export type CircuitBreakerConfig = RawProvidersFile['circuitBreaker'];
/** Operator keys are used only when enabled is true AND every readiness check passes at start. */
export type ManagedAccessConfig = RawProvidersFile['managedAccess'];

export type ProvidersFile = Omit<RawProvidersFile, 'providers'> & { providers: readonly ProviderConfig[] };

export type CatalogFamily = RawCatalogFile['families'][number];
/** A model's published output limit (catalog.yaml `models`): output caps above it are lowered per candidate. */
export type CatalogModel = RawCatalogFile['models'][number];
/** Thinking budget in tokens per reasoning effort; `levels`: Gemini 3's thinkingLevel instead. */
export type ModelReasoning = NonNullable<CatalogModel['reasoning']>;
/** A concrete model offered as a model of its own (catalog.yaml `concreteModels`), listed in /v1/models. */
export type ConcreteModel = Frozen<NonNullable<RawCatalogFile['concreteModels']>[number]>;

export type PricingConfig = Frozen<RawPricingFile>;

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
