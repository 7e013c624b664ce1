#!/usr/bin/env node
/**
 * The router's image run as an operator runs it, against this machine's PostgreSQL and Redis, with the
 * benchmark's fake upstream (bench/fake-upstream.mjs) on loopback standing in for OpenAI:
 *
 * 1. One container, non-root, read-only root filesystem, host network: `migrate`, then
 *    `serve --no-migrate`; /healthz, /readyz, a chat completion through the fake and the account app's
 *    sign-in page answer; SIGTERM (`docker stop`) under an open stream: /readyz turns 503, a new
 *    request gets 503, the stream finishes (every chunk, then `[DONE]`) and the container exits 0.
 * 2. The rolling upgrade: two containers of IMAGE behind nginx (a process of ours on loopback, with the
 *    config docs/deploy.md shows) under a bounded load; NEXT_IMAGE's `router migrate` (a build carrying
 *    one more schema version), then each container replaced by NEXT_IMAGE in turn, each after the one
 *    before answers /readyz. Passes with zero failed requests, the account's monthly count equal to the
 *    requests it was sent, and the previous release refusing to start on the migrated schema.
 *
 * Usage: node deploy/test/exercise-image.mjs IMAGE NEXT_IMAGE (deploy/test/image-stage.sh builds both).
 * Env: DOCKER (the client, default `docker`) with DOCKER_HOST; ROUTER_TEST_POSTGRES_URL (a database
 * to create a scratch database from) and ROUTER_TEST_REDIS_URL, as the test suite's; NGINX_BIN (default
 * `nginx`). Prints its figures and ends with `N passed, N failed`; exits 1 on any failure. Everything it
 * starts (containers, nginx, the fake, the scratch database) is gone when it exits.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { parse, stringify } from 'yaml';

const [image, nextImage] = process.argv.slice(2);
if (!image || !nextImage) {
  console.error('usage: node deploy/test/exercise-image.mjs IMAGE NEXT_IMAGE');
  process.exit(2);
}
const ROOT = new URL('../../', import.meta.url).pathname;
const DOCKER = process.env.DOCKER ?? 'docker';
const NGINX = process.env.NGINX_BIN ?? 'nginx';
const POSTGRES_URL = process.env.ROUTER_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.ROUTER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The load through nginx: requests per second, and hard bounds whatever happens. */
const LOAD_RATE = 15;
const LOAD_MAX_REQUESTS = 4000;
const LOAD_MAX_MS = 180_000;
const LABEL = `llm-router-exercise=${process.pid}`;
const run = promisify(execFile);
const started = Date.now();
const elapsed = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

let passed = 0;
let failed = 0;
function check(ok, what, detail = '') {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ` (${detail})` : ''}`);
  return ok;
}

const cleanups = [];
async function cleanUp() {
  for (const step of cleanups.reverse()) {
    try {
      await step();
    } catch (error) {
      console.error(`cleanup: ${error.message}`);
    }
  }
}

async function docker(args, { input, allowFailure = false } = {}) {
  const child = run(DOCKER, args, { maxBuffer: 16 * 1024 * 1024 });
  if (input !== undefined) child.child.stdin.end(input);
  try {
    return await child;
  } catch (error) {
    if (allowFailure) return { stdout: error.stdout ?? '', stderr: error.stderr ?? '', code: error.code };
    throw new Error(`docker ${args.slice(0, 2).join(' ')} failed: ${error.stderr || error.message}`);
  }
}

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  return port;
}

async function waitFor(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await probe()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
/**
 * How long a container may take to answer /healthz and /readyz. Printed, not judged: CI runs this stage
 * beside the test suite on two cores, where one container took 13.5 s and two started at once did not
 * answer within 30 s (their logs empty: not yet listening).
 */
const START_TIMEOUT_MS = 120_000;
const answers = (url, status = 200) => async () => (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === status;

// ---------------------------------------------------------------- the fake upstream, database, config
const work = mkdtempSync(join(tmpdir(), 'router-image-'));
chmodSync(work, 0o755); // the containers' user (10001) reads the config from here
cleanups.push(() => rmSync(work, { recursive: true, force: true }));

const fake = spawn(process.execPath, [join(ROOT, 'bench/fake-upstream.mjs')], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, BENCH_LATENCY_MS: '20', BENCH_LONG_STREAM_MS: '4000' } });
cleanups.push(async () => {
  fake.stdin.end();
  if (fake.exitCode === null) await once(fake, 'exit');
});
const [fakeLine] = await once(createInterface({ input: fake.stdout }), 'line');
const upstream = `http://127.0.0.1:${JSON.parse(fakeLine).port}/v1`;

const database = `router_image_${process.pid}_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: POSTGRES_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
cleanups.push(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
});
const storageUrl = new URL(POSTGRES_URL);
storageUrl.pathname = `/${database}`;
const redisPrefix = `router-image-${process.pid}:`;

const configDir = join(work, 'config');
mkdirSync(configDir);
for (const file of readdirSync(join(ROOT, 'config')).filter((f) => f.endsWith('.yaml'))) copyFileSync(join(ROOT, 'config', file), join(configDir, file));
copyFileSync(join(ROOT, 'deploy/server.yaml'), join(configDir, 'server.yaml'));
const rewrite = (file, change) => {
  const doc = parse(readFileSync(join(configDir, file), 'utf8'));
  change(doc);
  writeFileSync(join(configDir, file), stringify(doc));
};
rewrite('providers.yaml', (doc) => {
  for (const provider of doc.providers) provider.baseUrl = upstream; // nothing leaves the machine
  doc.managedAccess = { enabled: false };
});
rewrite('routes.yaml', (doc) => {
  doc.routes.find((route) => route.id === 'router/frontier').tiers = [[{ provider: 'openai', model: 'gpt-4.1' }]];
});
rewrite('server.yaml', (doc) => {
  doc.rateLimit = { ...doc.rateLimit, keyPrefix: redisPrefix };
});
for (const file of readdirSync(configDir)) chmodSync(join(configDir, file), 0o644);

const secretKey = randomBytes(32).toString('hex');
/** What every container gets: the host's network (PostgreSQL, Redis and the fake are on loopback), the config read-only. */
const runOptions = (port) => [
  '--network', 'host', '--read-only', '--tmpfs', '/tmp', '--label', LABEL,
  '-v', `${configDir}:/app/config:ro`,
  '-e', `ROUTER_STORAGE=${storageUrl}`, '-e', `ROUTER_REDIS_URL=${REDIS_URL}`, '-e', `ROUTER_SECRET_KEY=${secretKey}`,
  '-e', 'ROUTER_HOST=127.0.0.1', '-e', `ROUTER_PORT=${port ?? 8787}`,
];
cleanups.push(async () => {
  const { stdout } = await docker(['ps', '-aq', '--filter', `label=${LABEL}`]);
  const ids = stdout.split('\n').filter(Boolean);
  if (ids.length > 0) await docker(['rm', '-f', '-v', ...ids]);
});
const cli = async (img, args, input) => JSON.parse((await docker(['run', '--rm', ...(input === undefined ? [] : ['-i']), ...runOptions(), img, ...args, '--json'], { input })).stdout);

async function startRouter(img, name, port) {
  const t0 = Date.now();
  await docker(['run', '-d', '--name', name, ...runOptions(port), img, 'serve', '--no-migrate']);
  await waitFor(`${name} /healthz`, answers(`http://127.0.0.1:${port}/healthz`), START_TIMEOUT_MS);
  const healthyAfterMs = Date.now() - t0;
  // The port was free when chosen, but the test suite beside this stage starts routers of its own: only
  // the container's own line says the answer was its (one that lost the port logs "address in use").
  await waitFor(`${name} to log that it listens on ${port}`, async () => {
    const logs = await docker(['logs', name]);
    return `${logs.stdout}${logs.stderr}`.includes('router listening on');
  }, 10_000);
  await waitFor(`${name} /readyz`, answers(`http://127.0.0.1:${port}/readyz`), START_TIMEOUT_MS);
  return healthyAfterMs;
}

async function newAccount(img, email, providerKey) {
  const { account } = await cli(img, ['accounts', 'create', '--email', email, '--plan', 'max']);
  const { key } = await cli(img, ['keys', 'create', '--account', account.id, '--name', 'exercise']);
  await cli(img, ['provider-keys', 'set', '--account', account.id, '--provider', 'openai', '--key-stdin'], providerKey);
  return key;
}

const chat = (base, key, stream = false, signal) => fetch(`${base}/v1/chat/completions`, {
  method: 'POST',
  // A User-Agent naming the client: the router's edge rule refuses requests without one (code 1010).
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'llm-router-image-exercise/1.0' },
  body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello.' }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
  signal: signal ?? AbortSignal.timeout(30_000),
});

/** A whole answer read and judged: a completion with the fake's text, or a stream that ends in `[DONE]`. */
async function completeAnswer(response, stream) {
  if (response.status !== 200) return false;
  if (!stream) return (await response.json()).choices?.[0]?.message?.content?.startsWith('Hello from the benchmark upstream') === true;
  const text = await response.text();
  return text.includes('"finish_reason":"stop"') && text.trimEnd().endsWith('data: [DONE]');
}

async function containerUids(name) {
  const pid = (await docker(['inspect', '-f', '{{.State.Pid}}', name])).stdout.trim();
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return [pid, ...children].map((p) => /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1]);
}

try {
  // ------------------------------------------------------------------------- 1. one container
  console.log(`image ${image}: ${((Number((await docker(['image', 'inspect', '-f', '{{.Size}}', image])).stdout) / 1e6)).toFixed(0)} MB`);
  // Only sources changed between the two builds: the next one must reuse the dependency stages and ship
  // the same node_modules layer (Dockerfile), so hosts that pulled this release pull only the new dist/.
  const nodeModulesLayer = async (img) => (await docker(['history', '--no-trunc', '--format', '{{.ID}}\t{{.CreatedBy}}', img])).stdout
    .split('\n').find((line) => line.includes(' in ./node_modules'))?.split('\t')[0];
  const [modulesLayer, nextModulesLayer] = await Promise.all([image, nextImage].map(nodeModulesLayer));
  check(modulesLayer !== undefined && modulesLayer === nextModulesLayer, 'the next build ships the same node_modules layer', `${modulesLayer} and ${nextModulesLayer}`);
  let t0 = Date.now();
  const migrated = await cli(image, ['migrate']);
  check(migrated.migrated === true && migrated.storage === 'postgres', 'router migrate in the image migrates the PostgreSQL database', `schema version ${migrated.schemaVersion}, ${elapsed(t0)}`);
  const [loadKey, drainKey] = [
    await newAccount(image, 'load@example.com', `sk-bench-${randomBytes(12).toString('hex')}`),
    await newAccount(image, 'drain@example.com', `sk-bench-long-${randomBytes(12).toString('hex')}`),
  ];

  const portA = await freePort();
  const base = `http://127.0.0.1:${portA}`;
  const startMs = await startRouter(image, 'exercise-a', portA);
  check(true, 'serve --no-migrate answers /healthz after docker run', `${(startMs / 1000).toFixed(1)} s`);
  const uids = await containerUids('exercise-a');
  check(uids.every((uid) => uid === '10001'), 'tini and the router run as uid 10001, not root', uids.join(', '));
  const ready = await (await fetch(`${base}/readyz`)).json();
  check(ready.status === 'ready' && ready.store === 'postgres', '/readyz: ready on PostgreSQL', JSON.stringify(ready));
  check(await completeAnswer(await chat(base, loadKey), false), 'a chat completion through the fake upstream');
  check(await completeAnswer(await chat(base, loadKey, true), true), 'a streamed chat completion through the fake upstream');
  const signin = await fetch(`${base}/app/signin`);
  const signinPage = await signin.text();
  check(signin.status === 200 && /<form[^>]*method="post"/i.test(signinPage) && /type="password"/.test(signinPage), 'the account app\'s sign-in page', `HTTP ${signin.status}`);

  // SIGTERM under an open stream.
  const stream = await chat(base, drainKey, true);
  const reader = stream.body.getReader();
  const decoder = new TextDecoder();
  let streamed = decoder.decode((await reader.read()).value);
  t0 = Date.now();
  const stopping = docker(['stop', '-t', '40', 'exercise-a']);
  await waitFor('/readyz to say draining', answers(`${base}/readyz`, 503), 5_000);
  check(true, 'after SIGTERM /readyz answers 503');
  const refused = await chat(base, loadKey);
  check(refused.status === 503 && refused.headers.has('retry-after'), 'a new request during the drain gets 503 with Retry-After', `HTTP ${refused.status}`);
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) streamed += decoder.decode(chunk.value);
  await stopping;
  const drainMs = Date.now() - t0;
  const exitCode = (await docker(['inspect', '-f', '{{.State.ExitCode}}', 'exercise-a'])).stdout.trim();
  check(streamed.includes('"finish_reason":"stop"') && streamed.trimEnd().endsWith('data: [DONE]'), 'the open stream finished during the drain (finish, then [DONE])');
  check(exitCode === '0', 'the container exits 0 once drained', `exit ${exitCode}, docker stop took ${(drainMs / 1000).toFixed(1)} s`);
  await docker(['rm', '-v', 'exercise-a']);

  // ------------------------------------------------------------------------- 2. the rolling upgrade
  const ports = [await freePort(), await freePort()];
  t0 = Date.now();
  await Promise.all(ports.map((port, i) => startRouter(image, `exercise-${i}`, port)));
  console.log(`     two instances started side by side in ${elapsed(t0)}`);
  const nginxPort = await freePort();
  const nginxDir = join(work, 'nginx');
  mkdirSync(nginxDir);
  writeFileSync(join(nginxDir, 'nginx.conf'), nginxConfig(nginxDir, nginxPort, ports));
  // NGINX in nginx's environment names sockets to inherit: never pass one on.
  const { NGINX: _inherited, ...nginxEnv } = process.env;
  const nginx = spawn(NGINX, ['-p', nginxDir, '-c', join(nginxDir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'inherit', 'inherit'], env: nginxEnv });
  cleanups.push(async () => {
    if (nginx.exitCode !== null) return;
    nginx.kill('SIGQUIT');
    await once(nginx, 'exit');
  });
  const front = `http://127.0.0.1:${nginxPort}`;
  await waitFor('nginx', answers(`${front}/readyz`));

  const load = startLoad(front, loadKey);
  await sleep(2_000);
  t0 = Date.now();
  const nextMigrated = await cli(nextImage, ['migrate']);
  check(nextMigrated.schemaVersion === migrated.schemaVersion + 1, 'the next build\'s router migrate, under load, adds its schema version', `${migrated.schemaVersion} -> ${nextMigrated.schemaVersion}, ${elapsed(t0)}`);
  const refusedStart = await docker(['run', '--rm', ...runOptions(await freePort()), image, 'serve', '--no-migrate'], { allowFailure: true });
  check(refusedStart.code === 1 && /newer than this router knows/.test(refusedStart.stderr + refusedStart.stdout), 'the previous release refuses to start on the migrated schema', `exit ${refusedStart.code}`);
  await sleep(1_000);
  const rollStarted = Date.now();
  const sentBeforeRoll = load.stats().sent;
  for (const [i, port] of ports.entries()) {
    t0 = Date.now();
    await docker(['stop', '-t', '40', `exercise-${i}`]); // SIGTERM: drains, nginx retries what it refuses
    await docker(['rm', '-v', `exercise-${i}`]);
    await startRouter(nextImage, `exercise-${i}`, port); // back in nginx's rotation once it answers
    console.log(`     instance ${i + 1} replaced in ${elapsed(t0)} (${load.stats().sent} requests sent so far)`);
    await sleep(1_000);
  }
  const rollMs = Date.now() - rollStarted;
  const sentDuringRoll = load.stats().sent - sentBeforeRoll;
  await sleep(2_000);
  const stats = await load.stop();
  // The load ran through the whole roll (at least its two 1-second pauses' worth of requests inside it;
  // a quiet machine replaces both instances in about 5 s, a loaded one in a minute), and none failed.
  check(sentDuringRoll >= 2 * LOAD_RATE && stats.failed === 0, 'zero failed requests through nginx across the migration and the roll', `${stats.sent} sent (${stats.streams} streams, ${sentDuringRoll} during the roll), ${stats.ok} ok, ${stats.failed} failed${stats.firstFailure ? `, first: ${stats.firstFailure}` : ''}; roll ${(rollMs / 1000).toFixed(1)} s`);
  const retried = readFileSync(join(nginxDir, 'access.log'), 'utf8').split('\n').filter((line) => line.includes(', ')).length;
  console.log(`     nginx passed ${retried} request(s) on to the other instance (a 503 from a draining router, or a refused connection)`);
  const images = await Promise.all(ports.map(async (_, i) => (await docker(['inspect', '-f', '{{.Config.Image}}', `exercise-${i}`])).stdout.trim()));
  check(images.every((img) => img === nextImage), 'both instances run the next build', images.join(', '));
  const last = await chat(front, loadKey);
  const used = Number(last.headers.get('x-quota-used'));
  // The smoke test's two requests, the one refused during the drain (503 before admission counts nothing), the load, this one.
  check(last.status === 200 && used === 2 + stats.ok + 1, 'the monthly count after the roll equals the requests sent', `x-quota-used ${used}, expected ${2 + stats.ok + 1}`);
  const probe = new pg.Client({ connectionString: storageUrl.toString() });
  await probe.connect();
  const { rows } = await probe.query('SELECT max(version) AS version FROM schema_migrations');
  await probe.end();
  check(Number(rows[0].version) === nextMigrated.schemaVersion, 'schema_migrations records the new version', `version ${rows[0].version}`);
} catch (error) {
  check(false, 'the exercise ran to its end', error.stack ?? String(error));
  const { stdout } = await docker(['ps', '-aq', '--filter', `label=${LABEL}`], { allowFailure: true });
  for (const id of stdout.split('\n').filter(Boolean)) {
    const state = await docker(['inspect', '-f', '{{.Name}} {{.State.Status}}, exit {{.State.ExitCode}}, started {{.State.StartedAt}}', id], { allowFailure: true });
    const logs = await docker(['logs', '--tail', '30', id], { allowFailure: true });
    console.log(`--- container ${id}: ${state.stdout.trim()}; last log lines:\n${logs.stdout}${logs.stderr}`);
  }
} finally {
  await cleanUp();
}
console.log(`image exercise: ${elapsed(started)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/**
 * nginx in front of the instances (docs/deploy.md#nginx): open-source nginx has no active health checks,
 * so it learns from answers. A draining router answers new requests 503 before admitting them (nothing
 * counted, nothing sent upstream) and a stopped one refuses the connection: both are safe to pass to the
 * other instance even for a POST, which is what `proxy_next_upstream … non_idempotent` allows. Timeouts
 * are not retried (the first instance may still be working on the request). Streams pass unbuffered.
 * max_fails=0: no instance is ever marked unavailable, since with one instance draining and a failed
 * attempt on the other nginx would answer 502 (no live upstreams); a refused connection costs nothing.
 */
function nginxConfig(dir, port, upstreamPorts) {
  return `worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 1024; }
http {
  log_format upstreams '$status $request_uri $upstream_addr $upstream_status';
  access_log ${dir}/access.log upstreams;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream router {
${upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=0;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://router;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering off;
      proxy_read_timeout 300s;
      proxy_next_upstream error http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 3;
    }
  }
}
`;
}

/** Chat requests through `base` at LOAD_RATE a second (one in four a stream), bounded in count and time. */
function startLoad(base, key) {
  const stats = { sent: 0, ok: 0, failed: 0, streams: 0, firstFailure: undefined };
  const inFlight = new Set();
  const deadline = Date.now() + LOAD_MAX_MS;
  let stopped = false;
  const one = async (stream) => {
    try {
      const response = await chat(base, key, stream);
      if (await completeAnswer(response, stream)) stats.ok += 1;
      else {
        stats.failed += 1;
        stats.firstFailure ??= `HTTP ${response.status}`;
      }
    } catch (error) {
      stats.failed += 1;
      stats.firstFailure ??= error.cause?.code ?? error.message;
    }
  };
  const timer = setInterval(() => {
    if (stopped || stats.sent >= LOAD_MAX_REQUESTS || Date.now() > deadline) return;
    const stream = stats.sent % 4 === 3;
    stats.sent += 1;
    if (stream) stats.streams += 1;
    const request = one(stream).finally(() => inFlight.delete(request));
    inFlight.add(request);
  }, 1000 / LOAD_RATE);
  return {
    stats: () => ({ ...stats }),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all(inFlight);
      return { ...stats };
    },
  };
}
