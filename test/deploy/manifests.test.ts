/**
 * The deployment files (Dockerfile, deploy/compose.yaml, deploy/kubernetes/) checked against the router
 * they deploy: every manifest validated against the Kubernetes API's OpenAPI schemas (the
 * kubernetes-models package: field types, required fields, enums), the structure each kind requires,
 * that selectors, names, ports, probe paths and Secret keys agree with each other and with the server,
 * and that the ConfigMap is config/ as rendered and passes `router check` in the built CLI.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
// @ts-expect-error: a plain .mjs script without types; its one export returns the ConfigMap's text.
import { renderConfigMap } from '../../deploy/kubernetes/render-configmap.mjs';
import { SEMI_SPACE_FLAG } from '../../src/runtime/cluster/worker-node-flags.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/router');
const K8S = join(ROOT, 'deploy/kubernetes');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

type Doc = Record<string, any>;
const manifests: Doc[] = readdirSync(K8S)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .flatMap((file) => parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((doc) => ({ ...(doc.toJS() as Doc), file })));
const byKind = (kind: string): Doc[] => manifests.filter((doc) => doc.kind === kind);
const one = (kind: string, name?: string): Doc => {
  const found = byKind(kind).filter((doc) => name === undefined || doc.metadata.name === name);
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
};
const server = parse(read('deploy/server.yaml')) as Doc;
const dockerfile = read('Dockerfile');

/** apiVersion each kind is served under in current Kubernetes (1.25+), and the fields it cannot lack. */
const KINDS: Record<string, { apiVersion: string; required: string[] }> = {
  ConfigMap: { apiVersion: 'v1', required: ['data'] },
  Secret: { apiVersion: 'v1', required: ['type'] },
  Service: { apiVersion: 'v1', required: ['spec.selector', 'spec.ports'] },
  Deployment: { apiVersion: 'apps/v1', required: ['spec.selector.matchLabels', 'spec.template.metadata.labels', 'spec.template.spec.containers'] },
  PodDisruptionBudget: { apiVersion: 'policy/v1', required: ['spec.selector.matchLabels'] },
  HorizontalPodAutoscaler: { apiVersion: 'autoscaling/v2', required: ['spec.scaleTargetRef', 'spec.minReplicas', 'spec.maxReplicas', 'spec.metrics'] },
  Job: { apiVersion: 'batch/v1', required: ['spec.template.spec.containers', 'spec.template.spec.restartPolicy'] },
};
const at = (doc: Doc, path: string): unknown => path.split('.').reduce<any>((value, key) => value?.[key], doc);
const matches = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}
/** Whether CIDR `inner` lies inside CIDR `outer` (IPv4). */
function cidrWithin(inner: string, outer: string): boolean {
  const [innerBase, innerBits] = inner.split('/') as [string, string];
  const [outerBase, outerBits] = outer.split('/') as [string, string];
  if (Number(innerBits) < Number(outerBits)) return false;
  const mask = Number(outerBits) === 0 ? 0 : (~0 << (32 - Number(outerBits))) >>> 0;
  return ((ipv4ToInt(innerBase) & mask) >>> 0) === ((ipv4ToInt(outerBase) & mask) >>> 0);
}

/** The manifest checked by the Kubernetes API's schema for its apiVersion and kind; throws what is wrong. */
async function validateAgainstApiSchema(doc: Doc): Promise<void> {
  const { file: _file, ...manifest } = doc;
  // kubernetes-models lays out one module per kind under its API group and version: apps/v1/Deployment, v1/Service.
  const module = (await import(`kubernetes-models/${doc.apiVersion}/${doc.kind}`)) as Record<string, new (data: Doc) => { validate(): void }>;
  new module[doc.kind]!(manifest).validate();
}

describe('Kubernetes manifests (deploy/kubernetes/)', () => {
  it('are each valid against the Kubernetes API schema of its apiVersion and kind', async () => {
    for (const doc of manifests) await expect(validateAgainstApiSchema(doc), `${doc.file}: ${doc.kind}`).resolves.toBeUndefined();
  });

  it('the schema check rejects what the API server would (so the test above can fail)', async () => {
    const deployment = structuredClone(one('Deployment'));
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    await expect(validateAgainstApiSchema(deployment)).rejects.toThrow(/containerPort must be integer/);
    const job = structuredClone(one('Job'));
    delete job.spec.template.spec.containers[0].name;
    await expect(validateAgainstApiSchema(job)).rejects.toThrow(/containers\/0 must have required property name/);
  });

  it('are each a known kind under its current apiVersion, named, with the fields that kind requires', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(7);
    for (const doc of manifests) {
      const kind = KINDS[doc.kind];
      expect(kind, `${doc.file}: kind ${doc.kind}`).toBeDefined();
      expect(doc.apiVersion, doc.file).toBe(kind!.apiVersion);
      expect(doc.metadata?.name, doc.file).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      for (const path of kind!.required) expect(at(doc, path), `${doc.file}: ${path}`).toBeDefined();
      for (const container of (at(doc, 'spec.template.spec.containers') as Doc[] | undefined) ?? []) {
        expect(container.name).toMatch(/^[a-z0-9-]+$/);
        expect(container.image).toBeTruthy();
        expect(container.resources?.requests, `${doc.file}: resources`).toBeDefined();
      }
    }
  });

  it('kustomization.yaml names files that exist, and every manifest but the Secret example and the migration Job', () => {
    const kustomization = parse(readFileSync(join(K8S, 'kustomization.yaml'), 'utf8')) as Doc;
    for (const file of kustomization.resources) expect(existsSync(join(K8S, file)), file).toBe(true);
    const files = new Set(manifests.map((doc) => doc.file));
    expect([...files].filter((file) => !kustomization.resources.includes(file)).sort()).toEqual(['migrate-job.yaml', 'secret.example.yaml']);
  });

  it('ties Service, PodDisruptionBudget and autoscaler to the Deployment, and keeps the migration pods out of its selector', () => {
    const deployment = one('Deployment');
    const podLabels = deployment.spec.template.metadata.labels;
    expect(matches(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(matches(one('Service').spec.selector, podLabels)).toBe(true);
    expect(matches(one('PodDisruptionBudget').spec.selector.matchLabels, podLabels)).toBe(true);
    const hpa = one('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThan(one('PodDisruptionBudget').spec.minAvailable);
    const job = one('Job');
    expect(matches(deployment.spec.selector.matchLabels, job.spec.template.metadata.labels)).toBe(false);
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });

  it('points the ports and probes at the server: its port, /readyz for readiness, /healthz for liveness and start-up', () => {
    const deployment = one('Deployment');
    const [container] = deployment.spec.template.spec.containers as Doc[];
    const port = container!.ports.find((p: Doc) => p.name === 'http');
    expect(port.containerPort).toBe(server.listen.port);
    expect(dockerfile).toContain(`ROUTER_PORT=${server.listen.port}`);
    expect(dockerfile).toContain(`EXPOSE ${server.listen.port}`);
    expect(container!.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container!.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container!.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(one('Service').spec.ports[0].targetPort).toBe('http');
  });

  it('gives the pod time for its preStop pause and the whole drain before Kubernetes kills it', () => {
    const spec = one('Deployment').spec.template.spec;
    const [, pause] = spec.containers[0].lifecycle.preStop.exec.command as [string, string];
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(Number(pause) + server.shutdown.drainTimeoutMs / 1000);
  });

  it('starts the router with the semi-space bound cluster workers get (V8 reads it only when a process starts)', () => {
    expect(dockerfile).toContain(`ENTRYPOINT ["/usr/bin/tini", "--", "node", "${SEMI_SPACE_FLAG}", "/app/bin/router"]`);
  });

  it('runs as the image\'s non-root user; pods serve without migrating and the Job migrates', () => {
    const user = /^USER (\d+):(\d+)$/m.exec(dockerfile);
    expect(user).not.toBeNull();
    for (const doc of [one('Deployment'), one('Job')]) {
      expect(doc.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: Number(user![1]), runAsGroup: Number(user![2]) });
    }
    expect(one('Deployment').spec.template.spec.containers[0].args).toEqual(['serve', '--no-migrate']);
    expect(one('Job').spec.template.spec.containers[0].args).toEqual(['migrate']);
  });

  it('reads every secret from keys the example Secret has, and sets every variable the config files need', () => {
    const secretKeys = Object.keys(one('Secret').stringData);
    const configMap = one('ConfigMap');
    const referenced = new Set<string>();
    for (const text of Object.values(configMap.data as Record<string, string>)) {
      // A ${VAR} without a :- default must be set, or the config does not load.
      for (const match of text.matchAll(/\$\{([A-Z0-9_]+)\}/g)) referenced.add(match[1]!);
    }
    for (const doc of [one('Deployment'), one('Job')]) {
      const env = doc.spec.template.spec.containers[0].env as Doc[];
      for (const variable of env) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref) {
          expect(ref.name).toBe(one('Secret').metadata.name);
          expect(secretKeys, `${doc.file}: ${variable.name}`).toContain(ref.key);
        }
      }
      for (const needed of referenced) expect(env.map((variable) => variable.name), `${doc.file} sets ${needed}`).toContain(needed);
      expect(env.map((variable) => variable.name)).toContain('ROUTER_STORAGE');
    }
  });

  it('holds in its ConfigMap config/ with deploy/server.yaml, as render-configmap.mjs writes it (re-run it after changing either)', () => {
    expect(readFileSync(join(K8S, 'configmap.yaml'), 'utf8')).toBe(renderConfigMap());
    const data = one('ConfigMap').data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(readdirSync(join(ROOT, 'config')).filter((file) => file.endsWith('.yaml')).sort());
    expect(data['server.yaml']).toBe(read('deploy/server.yaml'));
  });
});

describe('the ConfigMap\'s files in the built router', () => {
  let dir: string;
  let dataDir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'router-k8s-config-'));
    dataDir = mkdtempSync(join(tmpdir(), 'router-k8s-data-'));
    for (const [file, text] of Object.entries(one('ConfigMap').data as Record<string, string>)) writeFileSync(join(dir, file), text);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  // What the Deployment's environment gives the config, with stand-in values and SQLite instead of PostgreSQL.
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, ROUTER_STORAGE: `sqlite:${join(dataDir, 'router.db')}`, ROUTER_SECRET_KEY: 'k8s-test-secret-0123456789abcdef', ROUTER_CONFIG: '' });

  it('pass `router check`', async () => {
    const { stdout, stderr } = await run('node', [BIN, 'check', '--config', dir, '--json'], { env: env() });
    expect(JSON.parse(stdout), stderr).toMatchObject({ ok: true });
  });

  it('serve the probes\' paths (and the image\'s and the proxy\'s health checks) with 200', { timeout: 60_000 }, async () => {
    const child = spawn('node', [BIN, 'serve', '--json', '--config', dir], { env: { ...env(), ROUTER_PORT: '0', ROUTER_HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const { listening } = JSON.parse(first) as { listening: string };
      const container = one('Deployment').spec.template.spec.containers[0];
      const paths = new Set<string>([
        container.readinessProbe.httpGet.path,
        container.livenessProbe.httpGet.path,
        container.startupProbe.httpGet.path,
        /fetch\('http:\/\/127\.0\.0\.1:'\+\(process\.env\.ROUTER_PORT\|\|\d+\)\+'(\/[a-z]+)'/.exec(dockerfile)![1]!,
        /health_uri (\S+)/.exec(read('deploy/compose/Caddyfile'))![1]!,
      ]);
      expect([...paths].sort()).toEqual(['/healthz', '/readyz']);
      for (const path of paths) expect((await fetch(`${listening}${path}`)).status, path).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});

describe('deploy/compose.yaml', () => {
  const compose = parse(read('deploy/compose.yaml'), { merge: true }) as Doc;
  const routers = ['router-1', 'router-2'];

  it('has two routers, PostgreSQL, Redis, a one-shot migration and a TLS proxy, each with its image or build', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['migrate', 'postgres', 'proxy', 'redis', ...routers].sort());
    for (const [name, service] of Object.entries<Doc>(compose.services)) expect(service.image ?? service.build, name).toBeTruthy();
    expect(compose.services.proxy.ports).toEqual(['8443:8443']);
    expect(read('deploy/compose/Caddyfile')).toMatch(/^localhost:8443 \{\n\ttls internal/m);
  });

  it('migrates once before the routers start, which serve without migrating and are health-checked on /healthz', () => {
    expect(compose.services.migrate.command).toEqual(['migrate']);
    expect(compose.services.migrate.depends_on.postgres.condition).toBe('service_healthy');
    for (const name of routers) {
      const service = compose.services[name];
      expect(service.command).toEqual(['serve', '--no-migrate']);
      expect(service.depends_on.migrate.condition).toBe('service_completed_successfully');
      expect(service.depends_on.redis.condition).toBe('service_healthy');
      expect(service.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${server.listen.port}/healthz`);
      expect(compose.services.proxy.depends_on[name].condition).toBe('service_healthy');
    }
    for (const name of ['postgres', 'redis']) expect(compose.services[name].healthcheck.test, name).toBeDefined();
  });

  it('wires the routers to the postgres and redis services by environment, and the proxy to both routers', () => {
    for (const name of ['migrate', ...routers]) {
      const env = compose.services[name].environment;
      expect(new URL(env.ROUTER_STORAGE.replace(/\$\{[^}]+\}/g, 'x')).host).toBe('postgres:5432');
      expect(env.ROUTER_REDIS_URL).toBe('redis://redis:6379');
      expect(env.ROUTER_SECRET_KEY).toMatch(/^\$\{ROUTER_SECRET_KEY:\?/);
    }
    const upstreams = /reverse_proxy ([^{]+)\{/.exec(read('deploy/compose/Caddyfile'))![1]!.trim().split(/\s+/);
    expect(upstreams).toEqual(routers.map((name) => `${name}:${server.listen.port}`));
  });

  it('mounts files that exist, and puts the proxy on a network server.yaml trusts', () => {
    for (const service of Object.values<Doc>(compose.services)) {
      for (const volume of (service.volumes ?? []) as string[]) {
        const [source] = volume.split(':') as [string];
        if (source.startsWith('.')) expect(existsSync(join(ROOT, 'deploy', source)), source).toBe(true);
      }
    }
    const [{ subnet }] = compose.networks.router.ipam.config as [{ subnet: string }];
    expect((server.trustedProxies as string[]).some((range) => cidrWithin(subnet, range))).toBe(true);
  });
});
