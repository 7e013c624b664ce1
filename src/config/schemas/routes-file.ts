/** schemas/routes.schema.json is generated from this definition (npm run schemas); edit here, never there. */
import { Type, type Static } from '@sinclair/typebox';
import { ConfigObject, FileSchema, LocalRef, OneOf } from './schema-builders.js';

const tiers = Type.Array(Type.Array(ConfigObject({
  provider: Type.String({ description: 'A provider id from providers.yaml.', minLength: 1 }),
  model: Type.String({ description: 'The upstream model name.', minLength: 1 }),
  weight: Type.Number({ description: 'Relative share inside the tier.', exclusiveMinimum: 0, default: 1 }),
}), { minItems: 1 }), {
  description: 'Ordered tiers; inside a tier targets are picked by weight, then the rest of the tier follows.',
  minItems: 1,
});

const stage = ConfigObject({
  tiers: LocalRef('tiers', tiers),
});

export const RoutesFileSchema = FileSchema(
  'routes.yaml',
  'Route profiles: the `model` a client asks for, and the providers tried for it.',
  {
    routes: Type.Array(ConfigObject({
      id: Type.String({
        description: 'What clients send as `model`, e.g. router/frontier.',
        pattern: '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$',
        'x-pattern-meaning': 'lowercase segments of letters, digits, ., - and _ separated by /, e.g. router/frontier',
      }),
      family: Type.String({ description: 'Catalog family the profile belongs to.', minLength: 1 }),
      description: Type.String(),
      quotaWeight: Type.Integer({ description: 'Requests counted against the monthly quota per call.', minimum: 0, default: 1 }),
      retryBudget: Type.Integer({ description: 'Attempts after the first, across all tiers.', minimum: 0, default: 3 }),
      tiers: LocalRef('tiers', tiers),
      fusion: Type.Optional(ConfigObject({
        mode: OneOf(['analyze-then-write', 'judge-writes'], {
          description: 'analyze-then-write: the judge analyses, the writer (default: the route\'s tiers) answers. judge-writes: the judge\'s tiers write the answer from the panel\'s answers.',
          default: 'analyze-then-write',
        }),
        panel: Type.Array(LocalRef('stage', stage), {
          description: '2..8 members asked in parallel, each with its own failover tiers.',
          minItems: 2,
          maxItems: 8,
        }),
        judge: LocalRef('stage', stage, { description: 'Returns the analysis as JSON (schemas/fusion-analysis.schema.json).' }),
        writer: Type.Optional(LocalRef('stage', stage, { description: 'Writes the final answer; the route\'s own tiers when absent.' })),
        minAnswers: Type.Integer({ description: 'Fewer surviving panel answers fails the request.', minimum: 1, maximum: 8, default: 1 }),
        panelTimeoutMs: Type.Integer({
          description: 'A panel member still running after this is dropped.',
          minimum: 100,
          maximum: 600000,
          default: 60000,
        }),
        maxPanelOutputTokens: Type.Integer({ description: 'Output cap of each panel call.', minimum: 16, maximum: 200000, default: 2048 }),
        keepAliveMs: Type.Integer({
          description: 'Streams: an SSE comment this often while the panel and judge run.',
          minimum: 10,
          maximum: 60000,
          default: 10000,
        }),
        maxToolRounds: Type.Integer({
          description: 'The router:fusion server tool: most fusion runs per request.',
          minimum: 1,
          maximum: 8,
          default: 2,
        }),
      }, {
        description: 'Judged multi-model synthesis: a panel answers in parallel, a judge analyses the answers as JSON, a writer writes the one answer the client gets.',
      })),
      promptCaching: OneOf(['auto', 'off'], {
        description: 'auto: cache breakpoints on the system prompt and the tool list for Anthropic upstreams (the client\'s own cache_control is kept), and requests with a cacheable prefix stay on the provider that served it while it is healthy (docs/routing.md#prompt-caching). off (default): only the client\'s own breakpoints.',
        default: 'off',
      }),
      order: OneOf(['tiers', 'measured'], {
        description: 'tiers (default): the order of tiers above, weights inside a tier. measured: every target ranked by live figures (time to first byte, or output tokens per second with sort: throughput), with hysteresis so traffic does not flap (docs/routing.md#measured-routing).',
        default: 'tiers',
      }),
      responseCache: Type.Optional(ConfigObject({
        enabled: Type.Boolean({ description: 'Cache every request to this profile as if it sent X-Router-Cache: true (docs/caching.md); a request may still send X-Router-Cache: false.', default: true }),
        ttlSeconds: Type.Optional(Type.Integer({ description: 'How long entries of this profile are served (a request\'s own TTL header wins); absent: server.yaml responseCache.defaultTtlSeconds.', minimum: 1, maximum: 86400 })),
      }, { description: 'The response cache for this profile (docs/caching.md).' })),
      sort: OneOf(['latency', 'throughput'], { description: 'With order: measured, the figure to rank by.', default: 'latency' }),
    }), { minItems: 1 }),
    aliases: Type.Optional(Type.Array(ConfigObject({
      model: Type.String({
        description: 'The model name or glob, e.g. claude-sonnet-*.',
        pattern: '^[A-Za-z0-9*][A-Za-z0-9._:*/@-]*$',
        'x-pattern-meaning': 'letters, digits, ., -, _, :, /, @ and * (matches any run of characters), e.g. claude-opus-*',
      }),
      route: Type.String({ description: 'The route profile the name reaches.' }),
    }), {
      description: 'Model names other than the route profiles that reach a profile on /v1/messages (Claude Code\'s own defaults): an exact name or a glob where * matches any run of characters, tried in order.',
    })),
  }, { $defs: { tiers, stage } });

export type RawRoutesFile = Static<typeof RoutesFileSchema>;
