/**
 * Environment overrides, applied on top of server.yaml before it is validated, so the schema checks
 * an override exactly as it checks YAML. A problem in an overridden value is reported against the
 * variable (file `env`, line 0, column 0), never with its value. An empty variable counts as unset.
 *
 *   ROUTER_PORT        listen.port (digits)
 *   ROUTER_HOST        listen.host
 *   ROUTER_WORKERS     listen.workers (digits, or `auto`)
 *   ROUTER_STORAGE     storage (`sqlite:PATH`, `postgres://…` or `postgresql://…`)
 *   ROUTER_BASE_URL    baseUrl
 *   ROUTER_APP_URL     appUrl
 *   ROUTER_DOCS_URL    docsUrl
 *   ROUTER_SUPPORT_URL supportUrl
 *   ROUTER_SECRET_KEY  secretKey
 *   ROUTER_REDIS_URL   rateLimit.redisUrl, and rateLimit.backend becomes `redis`
 *   ROUTER_SMTP_URL    app.mail.smtpUrl, and app.mail.transport becomes `smtp`
 *   ROUTER_LOG_LEVEL   logLevel
 *   ROUTER_LOG_FORMAT  logFormat (`json` or `pretty`; `auto` by default)
 *
 * ROUTER_CONFIG is not an override: it picks the directory (see resolve-config-dir.ts).
 *
 * The standard OpenTelemetry variables set `tracing` (later entries win, as the specification orders them):
 *   OTEL_EXPORTER_OTLP_ENDPOINT         tracing.endpoint (the base URL + /v1/traces), and tracing.enabled
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  tracing.endpoint (as is), and tracing.enabled
 *   OTEL_SERVICE_NAME                   tracing.serviceName
 *   OTEL_TRACES_SAMPLER                 tracing.sampler
 *   OTEL_TRACES_SAMPLER_ARG             tracing.sampleRatio
 *   OTEL_BSP_SCHEDULE_DELAY             tracing.exportIntervalMs
 *   OTEL_BSP_MAX_QUEUE_SIZE             tracing.maxQueueSize
 *   OTEL_BSP_EXPORT_TIMEOUT             tracing.exportTimeoutMs
 *   OTEL_SDK_DISABLED=true              tracing.enabled false
 */
import { escapePointerSegment } from './locate-pointer.js';

interface Override {
  variable: string;
  path: readonly string[];
  value: (raw: string) => unknown;
}

const asIs = (raw: string): unknown => raw;
// Digits become a number; anything else stays a string so the schema reports what it must be.
const digitsAsNumber = (raw: string): unknown => (/^\d+$/.test(raw) ? Number(raw) : raw);
const decimalAsNumber = (raw: string): unknown => (/^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw);

const OVERRIDES: readonly Override[] = [
  { variable: 'ROUTER_PORT', path: ['listen', 'port'], value: digitsAsNumber },
  { variable: 'ROUTER_HOST', path: ['listen', 'host'], value: asIs },
  { variable: 'ROUTER_WORKERS', path: ['listen', 'workers'], value: digitsAsNumber },
  { variable: 'ROUTER_STORAGE', path: ['storage'], value: asIs },
  { variable: 'ROUTER_BASE_URL', path: ['baseUrl'], value: asIs },
  { variable: 'ROUTER_APP_URL', path: ['appUrl'], value: asIs },
  { variable: 'ROUTER_DOCS_URL', path: ['docsUrl'], value: asIs },
  { variable: 'ROUTER_SUPPORT_URL', path: ['supportUrl'], value: asIs },
  { variable: 'ROUTER_SECRET_KEY', path: ['secretKey'], value: asIs },
  { variable: 'ROUTER_REDIS_URL', path: ['rateLimit', 'backend'], value: () => 'redis' },
  { variable: 'ROUTER_REDIS_URL', path: ['rateLimit', 'redisUrl'], value: asIs },
  { variable: 'ROUTER_SMTP_URL', path: ['app', 'mail', 'transport'], value: () => 'smtp' },
  { variable: 'ROUTER_SMTP_URL', path: ['app', 'mail', 'smtpUrl'], value: asIs },
  { variable: 'ROUTER_LOG_LEVEL', path: ['logLevel'], value: asIs },
  { variable: 'ROUTER_LOG_FORMAT', path: ['logFormat'], value: asIs },
  { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', path: ['tracing', 'enabled'], value: () => true },
  { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', path: ['tracing', 'endpoint'], value: (raw) => `${raw.trim().replace(/\/+$/, '')}/v1/traces` },
  { variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', path: ['tracing', 'enabled'], value: () => true },
  { variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', path: ['tracing', 'endpoint'], value: (raw) => raw.trim() },
  { variable: 'OTEL_SERVICE_NAME', path: ['tracing', 'serviceName'], value: asIs },
  { variable: 'OTEL_TRACES_SAMPLER', path: ['tracing', 'sampler'], value: (raw) => raw.trim().toLowerCase() },
  { variable: 'OTEL_TRACES_SAMPLER_ARG', path: ['tracing', 'sampleRatio'], value: decimalAsNumber },
  { variable: 'OTEL_BSP_SCHEDULE_DELAY', path: ['tracing', 'exportIntervalMs'], value: digitsAsNumber },
  { variable: 'OTEL_BSP_MAX_QUEUE_SIZE', path: ['tracing', 'maxQueueSize'], value: digitsAsNumber },
  { variable: 'OTEL_BSP_EXPORT_TIMEOUT', path: ['tracing', 'exportTimeoutMs'], value: digitsAsNumber },
  // Only `true` disables (the specification's rule); any other value leaves tracing as configured.
  { variable: 'OTEL_SDK_DISABLED', path: ['tracing', 'enabled'], value: (raw) => (raw.trim().toLowerCase() === 'true' ? false : undefined) },
];

/**
 * Writes the overrides set in `env` into `server` (the data of server.yaml, changed in place) and
 * returns which JSON pointer each variable wrote, for reporting problems against the variable.
 */
export function applyEnvOverrides(server: unknown, env: NodeJS.ProcessEnv): Map<string, string> {
  const written = new Map<string, string>();
  if (!isRecord(server)) return written;
  for (const { variable, path, value } of OVERRIDES) {
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    const overriding = value(raw);
    // undefined: the variable's value asks for no change (OTEL_SDK_DISABLED=false).
    if (overriding === undefined) continue;
    if (setAt(server, path, overriding)) {
      written.set(path.map((segment) => `/${escapePointerSegment(segment)}`).join(''), variable);
    }
  }
  return written;
}

/** Creates missing parents; leaves a parent of the wrong type alone for the schema to report. */
function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): boolean {
  let target = root;
  for (const segment of path.slice(0, -1)) {
    const next = target[segment] ?? {};
    if (!isRecord(next)) return false;
    target[segment] = next;
    target = next;
  }
  const last = path[path.length - 1];
  if (last === undefined) return false;
  target[last] = value;
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
