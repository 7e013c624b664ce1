/**
 * A built router in its own process (`node bin/router serve`), in front of the fake providers, with one
 * account per plan created through the CLI: what an attacker or an operator meets. Crashes, exit codes,
 * signals and log lines can only be observed honestly from outside the process.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PROVIDER_KEYS,
  frontierOrder,
  pointProvidersAt,
  runCliJson,
  startFakes,
  startRouterProcess,
  writeConfigDir,
  type Fakes,
  type RouterProcess,
  type YamlPatch,
} from '../e2e/router-harness.js';

export interface SpawnedRouter extends RouterProcess {
  fakes: Fakes;
  env: Record<string, string>;
  dataDir: string;
  /** Create an account on `plan` with BYOK keys for every provider (or the ones given) and one key. */
  account(plan?: string, providerKeys?: Record<string, string>): Promise<{ accountId: string; key: string }>;
  /** Stop the process (SIGTERM, then SIGKILL after 5 s) and the fakes, and delete the data. */
  close(): Promise<void>;
}

export async function startSpawnedRouter(
  options: {
    patch?: YamlPatch;
    env?: Record<string, string>;
    fakes?: Fakes;
    readyTimeoutMs?: number;
    /** Changes to providers.yaml once its providers point at the fakes (timeouts, say). */
    providers?: (doc: any) => void;
  } = {},
): Promise<SpawnedRouter> {
  const fakes = options.fakes ?? (await startFakes());
  const configDir = writeConfigDir({
    providers: pointProvidersAt(fakes.urls, options.providers),
    routes: frontierOrder(['openai', 'anthropic', 'gemini']),
    ...options.patch,
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'router-security-'));
  const env = {
    ROUTER_CONFIG: configDir,
    ROUTER_STORAGE: `sqlite:${join(dataDir, 'router.db')}`,
    ROUTER_SECRET_KEY: 'security-suite-secret-0123456789abcdef',
    ROUTER_LOG_FORMAT: 'json',
    ...options.env,
  };
  const process = await startRouterProcess(env, options.readyTimeoutMs);
  return {
    ...process,
    fakes,
    env,
    dataDir,
    async account(plan = 'pro', providerKeys: Record<string, string> = { ...PROVIDER_KEYS }) {
      const { account } = await runCliJson(env, 'accounts', 'create', '--email', `sec-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`, '--plan', plan);
      for (const [provider, value] of Object.entries(providerKeys)) {
        await runCliJson(env, 'provider-keys', 'set', '--account', account.id, '--provider', provider, '--key', value);
      }
      const { key } = await runCliJson(env, 'keys', 'create', '--account', account.id);
      return { accountId: account.id, key };
    },
    async close() {
      await process.stop();
      if (!options.fakes) await fakes.close();
      rmSync(configDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * POST a body of `totalBytes` with Transfer-Encoding: chunked, in 64 KiB chunks, and read whatever the
 * server answers. Writing stops (without an error) once the server answered or closed the connection.
 */
export function postChunked(url: string, headers: Record<string, string>, totalBytes: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => void (body += text));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes && !answered && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

/** Send raw bytes over TCP and collect everything the server sends back until it closes (or `timeoutMs`). */
export function rawExchange(url: string, bytes: string | Buffer, timeoutMs = 3000): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const socket = connect(Number(target.port), target.hostname);
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedByServer: false });
    }, timeoutMs);
    socket.on('data', (chunk) => void (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedByServer: true });
    });
    socket.write(bytes);
  });
}

/** The JSON log lines a process printed (ROUTER_LOG_FORMAT=json), parsed; other lines are skipped. */
export function jsonLogLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** The account's monthly count as the spawned router's SQLite file holds it (summed over periods). */
export function usedThisMonth(router: SpawnedRouter, accountId: string): number {
  const db = new Database(join(router.dataDir, 'router.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT SUM(used) AS used FROM quota_usage WHERE account_id = ?').get(accountId) as { used: number | null };
    return row.used ?? 0;
  } finally {
    db.close();
  }
}

/**
 * One keep-alive connection to each worker of a spawned cluster: the workers accept from one shared
 * socket, so each connection belongs to one of them, and which one is read from its log line (a request
 * with a wrong key is logged with its request id by the worker that answered it).
 */
export async function oneConnectionPerWorker(router: SpawnedRouter, workers = 2): Promise<Map<string, import('undici').Client>> {
  const { Client } = await import('undici');
  const byWorker = new Map<string, import('undici').Client>();
  for (let i = 0; i < 10 * workers && byWorker.size < workers; i++) {
    const client = new Client(router.url, { pipelining: 1 });
    const answer = await client.request({
      path: '/v1/models',
      method: 'GET',
      headers: { 'user-agent': 'cluster-tests/1.0', authorization: 'Bearer sk-wrong-key-for-worker-probe' },
    });
    const requestId = answer.headers['x-request-id'] as string;
    await answer.body.dump();
    let worker: string | undefined;
    const deadline = Date.now() + 5000;
    while ((worker = jsonLogLines(router.output()).find((line) => line.requestId === requestId)?.tag as string | undefined) === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (worker === undefined || byWorker.has(worker)) await client.close();
    else byWorker.set(worker, client);
  }
  if (byWorker.size < workers) throw new Error(`reached ${byWorker.size} of ${workers} workers`);
  return byWorker;
}
