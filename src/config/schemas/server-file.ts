/** schemas/server.schema.json is generated from this definition (npm run schemas); edit here, never there. */
import { Type, type Static } from '@sinclair/typebox';
import { ConfigObject, Const, FileSchema, LocalRef, OneOf } from './schema-builders.js';

const httpUrl = Type.String({ pattern: '^https?://\\S+$', 'x-pattern-meaning': 'an http:// or https:// URL' });

export const ServerFileSchema = FileSchema(
  'server.yaml',
  'Where the router listens, how it presents itself, and where it keeps its state.',
  {
    baseUrl: Type.Optional(LocalRef('httpUrl', httpUrl, {
      description: 'Public API origin, without /v1 (a trailing /v1 is dropped). Defaults to the address the router listens on. Overridden by ROUTER_BASE_URL.',
    })),
    appUrl: Type.Optional(LocalRef('httpUrl', httpUrl, {
      description: 'Browser account and billing interface. Defaults to {baseUrl}/app. Overridden by ROUTER_APP_URL.',
    })),
    docsUrl: Type.Optional(LocalRef('httpUrl', httpUrl, {
      description: 'Documentation linked from guided errors. Defaults to {baseUrl}/docs. Overridden by ROUTER_DOCS_URL.',
    })),
    supportUrl: Type.Optional(LocalRef('httpUrl', httpUrl, {
      description: 'Support page linked from quota errors. Defaults to {appUrl}/support. Overridden by ROUTER_SUPPORT_URL.',
    })),
    listen: ConfigObject({
      host: Type.String({ description: 'Interface to bind. Overridden by ROUTER_HOST.', minLength: 1, default: '127.0.0.1' }),
      port: Type.Integer({
        description: 'TCP port; 0 picks a free one. Overridden by ROUTER_PORT.',
        minimum: 0,
        maximum: 65535,
        default: 8787,
      }),
      maxConnections: Type.Integer({
        description: 'Open client connections accepted at once (per worker); further connections are refused until one closes.',
        minimum: 1,
        default: 10000,
      }),
      workers: Type.Union([Type.Integer({ minimum: 1, maximum: 256 }), Const('auto')], {
        description: 'Processes serving the listener: 1 serves in the one process; N > 1 forks N workers that share the socket and the limits (cluster mode); auto is one per available core. Overridden by ROUTER_WORKERS.',
        'x-pattern-meaning': 'a whole number from 1 to 256, or auto',
        default: 1,
      }),
      watchdogTimeoutMs: Type.Union([Type.Literal(0), Type.Integer({ minimum: 1000, maximum: 600000 })], {
        description: 'Cluster mode: a worker whose event loop has sent no heartbeat for this long counts as hung; the primary kills it (SIGKILL), which resets its connections, and starts a replacement. Heartbeats come from the event loop, so a worker waiting on I/O is never killed, only one whose loop is blocked (a synchronous SQLite wait on a lock included). 0 turns the watchdog off (for a debugger paused at a breakpoint).',
        'x-pattern-meaning': '0 (off), or a whole number of milliseconds from 1000 to 600000',
        default: 3000,
      }),
    }, { default: {} }),
    trustedProxies: Type.Array(Type.String({ minLength: 1 }), {
      description: 'Reverse proxies in front of the router, as CIDR ranges or single addresses (IPv4 and IPv6). The account app reads the client\'s address from X-Forwarded-For only through these hops; empty (the default) never reads the header.',
      default: [],
    }),
    storage: Type.String({
      description: 'sqlite:PATH or postgres://… (postgresql:// too). Overridden by ROUTER_STORAGE.',
      pattern: '^(sqlite:\\S.*|postgres(ql)?://\\S+)$',
      'x-pattern-meaning': 'sqlite:PATH, postgres://… or postgresql://…',
    }),
    rateLimit: ConfigObject({
      backend: OneOf(['memory', 'redis'], {
        description: 'memory: per-instance windows; redis: windows shared by every instance.',
        default: 'memory',
      }),
      redisUrl: Type.Optional(Type.String({
        description: 'Required when backend is redis. ROUTER_REDIS_URL sets it and switches backend to redis.',
        pattern: '^rediss?://\\S+$',
        'x-pattern-meaning': 'a redis:// or rediss:// URL',
      })),
      keyPrefix: Type.String({
        description: 'Prefix of every Redis key the router writes (windows and quota gate), so several deployments can share one Redis.',
        pattern: '^[A-Za-z0-9:_.-]{1,64}$',
        'x-pattern-meaning': '1 to 64 letters, digits or : _ . -',
        default: 'rl:',
      }),
      quotaGate: Type.Boolean({
        description: 'Admit monthly quota in a gate drawing on blocks reserved in the store: in Redis with backend redis, in memory on SQLite with backend memory (false: one store statement per request).',
        default: true,
      }),
    }, {
      default: {},
      if: { properties: { backend: { const: 'redis' } } },
      then: { properties: { redisUrl: true }, required: ['redisUrl'] },
    }),
    secretKey: Type.Optional(Type.String({
      description: 'Keys API-key hashes and encrypts stored provider keys. Use an ${ENV} reference; empty means none. Overridden by ROUTER_SECRET_KEY.',
    })),
    bodyLimitBytes: Type.Integer({ description: 'Largest request body accepted.', minimum: 1, default: 10485760 }),
    keyCacheTtlMs: Type.Integer({
      description: 'How long a verified key stays cached on an instance: the bound on cross-process revocation.',
      minimum: 0,
      default: 5000,
    }),
    requestTimeoutMs: Type.Integer({ description: 'Upper bound of a whole request, stream included.', minimum: 1, default: 600000 }),
    logLevel: OneOf(['silent', 'error', 'warn', 'info', 'debug'], {
      description: 'Least severe log lines written: debug adds client aborts and refused HTTP requests. Overridden by ROUTER_LOG_LEVEL.',
      default: 'info',
    }),
    logFormat: OneOf(['auto', 'json', 'pretty'], {
      description: 'json: one JSON object per line (production); pretty: consola\'s terminal output; auto: pretty when stderr is a terminal. Overridden by ROUTER_LOG_FORMAT.',
      default: 'auto',
    }),
    shutdown: ConfigObject({
      drainTimeoutMs: Type.Integer({
        description: 'On SIGTERM or SIGINT: how long in-flight requests may run on before each remaining one is ended (a stream with its in-stream error event). A second signal ends them at once.',
        minimum: 0,
        default: 30000,
      }),
    }, { default: {} }),
    edge: ConfigObject({
      enabled: Type.Boolean({ description: 'Reject requests without a descriptive User-Agent (code 1010).', default: true }),
      rejectUserAgents: Type.Array(Type.String({ minLength: 1 }), { description: 'Case-insensitive product tokens of bare HTTP-library defaults.', default: [] }),
    }, { default: {} }),
    responseCache: ConfigObject({
      maxBytes: Type.Integer({
        description: 'Bytes of answers the response cache keeps: per process in memory (rateLimit.backend memory), or in Redis for every instance (backend redis). Past it the least recently used (memory) or soonest expiring (Redis) entries go.',
        minimum: 1024,
        maximum: 17179869184,
        default: 67108864,
      }),
      maxEntryBytes: Type.Integer({
        description: 'Largest answer stored; a larger one is served but not cached.',
        minimum: 256,
        maximum: 67108864,
        default: 1048576,
      }),
      maxEntries: Type.Integer({ description: 'Most entries kept at once (Redis and memory alike).', minimum: 1, maximum: 10000000, default: 100000 }),
      defaultTtlSeconds: Type.Integer({ description: 'How long an entry is served when the request and its route profile name no TTL.', minimum: 1, maximum: 86400, default: 300 }),
    }, {
      description: 'The exact-match response cache (docs/caching.md): opt-in per request (X-Router-Cache, X-OpenRouter-Cache) or per route profile.',
      default: {},
    }),
    ledger: ConfigObject({
      enabled: Type.Boolean({
        description: 'Record usage. Off: no ledger, no spend metering, so managed provider access stays off.',
        default: true,
      }),
      flushIntervalMs: Type.Integer({
        description: 'Longest a finished request\'s record waits in memory before it is written: the worst-case loss on a hard crash.',
        minimum: 50,
        maximum: 60000,
        default: 500,
      }),
      batchSize: Type.Integer({
        description: 'Records written per transaction (SQLite) or statement (PostgreSQL); a full batch is written at once.',
        minimum: 1,
        maximum: 5000,
        default: 500,
      }),
      maxQueued: Type.Integer({
        description: 'Records held in memory while the database falls behind; past it, records of BYOK requests are dropped (counted, logged, in /readyz and metrics) and managed-access requests are refused.',
        minimum: 1,
        default: 20000,
      }),
      retentionDays: Type.Integer({
        description: 'Days raw records are kept; the per-account rollups that usage reports read are kept.',
        minimum: 1,
        default: 30,
      }),
      costInResponses: Type.Boolean({
        description: 'Add usage.cost (USD) and usage.cost_details (per token type) to every chat and Responses answer: the figure the ledger records.',
        default: true,
      }),
    }, {
      description: 'The usage ledger: one record per admitted model request, written off the request path in batches.',
      default: {},
    }),
    tracing: ConfigObject({
      enabled: Type.Boolean({ description: 'Export traces.', default: false }),
      endpoint: Type.String({
        description: 'The collector\'s OTLP/HTTP traces URL.',
        pattern: '^https?://',
        default: 'http://localhost:4318/v1/traces',
      }),
      serviceName: Type.String({ description: 'service.name of every span.', minLength: 1, default: 'llm-router' }),
      sampler: OneOf(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'], {
        description: 'Which traces are kept, by the standard OTEL_TRACES_SAMPLER names; parentbased_* keep a client\'s sampling decision.',
        default: 'parentbased_traceidratio',
      }),
      sampleRatio: Type.Number({
        description: 'Share of new traces the *traceidratio samplers keep.',
        minimum: 0,
        maximum: 1,
        default: 1,
      }),
      maxQueueSize: Type.Integer({
        description: 'Spans held for export; past it new spans are dropped, never waited for.',
        minimum: 1,
        default: 2048,
      }),
      exportIntervalMs: Type.Integer({ description: 'How often queued spans are sent.', minimum: 10, default: 5000 }),
      exportTimeoutMs: Type.Integer({
        description: 'Longest one export may take before it is abandoned (and logged).',
        minimum: 100,
        default: 10000,
      }),
    }, {
      description: 'OpenTelemetry traces exported over OTLP/HTTP (JSON): one server span per request, its admission stages and one client span per upstream attempt (docs/operations.md#tracing). Off by default; OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_EXPORT_TIMEOUT and OTEL_SDK_DISABLED set these.',
      default: {},
    }),
    metrics: ConfigObject({
      enabled: Type.Boolean({ description: 'Serve GET /metrics.', default: true }),
      token: Type.Optional(Type.String({
        description: 'When set, /metrics requires Authorization: Bearer <token> (401 otherwise). Use an ${ENV} reference; empty means none.',
      })),
    }, { description: 'GET /metrics in Prometheus text format on the main listener.', default: {} }),
    billing: ConfigObject({
      provider: OneOf(['none', 'stripe'], {
        description: 'stripe: checkout, the Customer Portal and webhooks at {appUrl}/billing/webhook; none: no online billing.',
        default: 'none',
      }),
      pastDueGraceDays: Type.Integer({
        description: 'Days a subscription whose payment failed keeps its paid plan; then the account moves to the sign-up plan until a payment succeeds.',
        minimum: 0,
        maximum: 60,
        default: 7,
      }),
      stripe: ConfigObject({
        secretKey: Type.Optional(Type.String({
          description: 'Stripe secret API key (sk_test_… or sk_live_…). Use an ${ENV} reference; required with provider stripe.',
        })),
        webhookSecret: Type.Optional(Type.String({
          description: 'Signing secret (whsec_…) of the webhook endpoint registered in Stripe. Use an ${ENV} reference; required with provider stripe.',
        })),
        apiUrl: LocalRef('httpUrl', httpUrl, {
          description: 'Address of the Stripe API. Change it only for stripe-mock or tests.',
          default: 'https://api.stripe.com',
        }),
      }, { default: {} }),
    }, {
      description: 'Plans bought and changed online through Stripe Checkout and the Customer Portal (docs/billing.md). none: plans are managed by the operator (`router accounts set-plan`).',
      default: {},
    }),
    app: ConfigObject({
      enabled: Type.Boolean({ description: 'Serve the account app, the HTML pages and the docs.', default: true }),
      signup: OneOf(['open', 'invite'], {
        description: 'open: anyone may sign up; invite: only through a link from `router accounts invite`.',
        default: 'open',
      }),
      signupPlan: Type.String({ description: 'Plan id a new account starts on.', minLength: 1, default: 'free' }),
      mail: ConfigObject({
        transport: OneOf(['none', 'log', 'smtp'], {
          description: 'none: no mail (links come from the CLI); log: each message is written to the server log (development); smtp: sent through smtpUrl. ROUTER_SMTP_URL sets smtpUrl and switches this to smtp.',
          default: 'none',
        }),
        smtpUrl: Type.Optional(Type.String({
          description: 'smtp://user:pass@host:port (STARTTLS where the server offers it) or smtps://… (TLS from the start). Use an ${ENV} reference (ROUTER_SMTP_URL); required with transport smtp.',
          pattern: '^smtps?://\\S+$',
          'x-pattern-meaning': 'an smtp:// or smtps:// URL',
        })),
        from: Type.String({
          description: 'The From header of every message the app sends.',
          minLength: 3,
          default: 'LLM Router <no-reply@localhost>',
        }),
      }, {
        description: 'How the app sends mail: reset and verification links, alerts, sign-ins from a new device.',
        default: {},
        if: { properties: { transport: { const: 'smtp' } }, required: ['transport'] },
        then: { properties: { smtpUrl: true }, required: ['smtpUrl'] },
      }),
      requireEmailVerification: Type.Optional(Type.Boolean({
        description: 'A new account confirms its email through a mailed link before its first key is shown. Default: on exactly when mail.transport is smtp.',
      })),
      alerts: ConfigObject({
        sweepSeconds: Type.Integer({
          description: 'How often accounts that had traffic are checked for alerts (off the request path).',
          minimum: 1,
          maximum: 3600,
          default: 30,
        }),
        spikeMinRequests: Type.Integer({
          description: 'Leaked-key signal: a key\'s requests in the last hour below this are never a spike.',
          minimum: 1,
          default: 200,
        }),
        spikeFactor: Type.Number({
          description: 'Leaked-key signal: how many times the key\'s own average hourly rate over the week before the last hour must reach.',
          minimum: 1,
          default: 10,
        }),
      }, {
        description: 'Usage and security alerts (on the app\'s home, the security page and by email).',
        default: {},
      }),
      sessionIdleMinutes: Type.Integer({ description: 'A session unused this long ends.', minimum: 1, default: 60 }),
      sessionAbsoluteHours: Type.Integer({ description: 'A session ends this long after sign-in, however active.', minimum: 1, default: 12 }),
      linkMinutes: Type.Integer({
        description: 'How long an invite or reset link stays valid (at most 30).',
        minimum: 1,
        maximum: 30,
        default: 30,
      }),
      support: Type.Optional(Type.String({
        description: 'How people reach you: an email address (shown on {appUrl}/support, and the address its signed-in contact form mails when mail can be sent) or an https:// URL of your own help desk (linked instead of the form). Linked from "Ask for Pro", billing and forgot-password when mail is off. Unset: the support page offers no contact, and says so.',
        pattern: '^(https://[^\\s<>"]+|[^\\s@<>"(),;:]+@[^\\s@<>"(),;:]+\\.[^\\s@<>"(),;:]+)$',
        'x-pattern-meaning': 'an email address (support@example.com) or an https:// URL',
        maxLength: 320,
      })),
      legal: ConfigObject({
        terms: Type.Optional(Type.String({ description: 'Markdown file of the terms of service.', minLength: 1 })),
        privacy: Type.Optional(Type.String({ description: 'Markdown file of the privacy notice.', minLength: 1 })),
      }, {
        description: 'Your own terms of service and privacy notice, as Markdown files (paths relative to the configuration directory), shown at {appUrl}/terms and {appUrl}/privacy and linked from every page\'s footer and the sign-up form. Raw HTML in them is shown as text.',
        default: {},
      }),
    }, {
      description: 'The account web app served at appUrl\'s path (sign-up, keys, provider keys, security).',
      default: {},
    }),
  }, { $defs: { httpUrl } });

export type RawServerFile = Static<typeof ServerFileSchema>;
