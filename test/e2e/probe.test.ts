/**
 * `router probe` (the built CLI) against a running `router serve` process in front of fake providers.
 * The account app and docs do not exist in this repository yet, so the router's app and docs URLs point
 * at a small site the test controls: answering 200 the probe passes, a 404 on one page fails it by name.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  TEST_SECRET,
  frontierOrder,
  runCli,
  runCliJson,
  startFakes,
  startRouterProcess,
  writeConfigDir,
  type Fakes,
  type RouterProcess,
} from './router-harness.js';
import { BILLING_ENV, billingPatch } from './billing-harness.js';

/** A site answering 200 to every GET, except the paths told to fail. */
async function startSite(): Promise<{ url: string; failing: Set<string>; visited: string[]; close(): Promise<void> }> {
  const failing = new Set<string>();
  const visited: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    visited.push(path);
    res.writeHead(failing.has(path) ? 404 : 200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, failing, visited, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('router probe against a running router', { timeout: 90_000 }, () => {
  let fakes: Fakes;
  let site: Awaited<ReturnType<typeof startSite>>;
  let router: RouterProcess;
  let env: Record<string, string>;
  let dataDir: string;
  let keys: { pro: string; free: string };
  const probe = (...args: string[]) => runCli(env, 'probe', '--base-url', router.baseURL, ...args);

  beforeAll(async () => {
    fakes = await startFakes();
    fakes.openai.setReply({ toolCalls: [{ name: 'get_time', arguments: { city: 'Paris' } }], toolCallsWhenOffered: true });
    site = await startSite();
    dataDir = mkdtempSync(join(tmpdir(), 'router-probe-'));
    // Billing on, so /pricing lists the checkout paths the link check follows.
    const billing = billingPatch('https://api.stripe.com', fakes.urls);
    const configDir = writeConfigDir({
      server: (doc) => {
        billing.server!(doc);
        doc.docsUrl = `${site.url}/docs`;
      },
      plans: billing.plans!,
      providers: billing.providers!,
      routes: frontierOrder(['openai']),
    });
    env = { ROUTER_CONFIG: configDir, ROUTER_STORAGE: `sqlite:${join(dataDir, 'router.db')}`, ROUTER_SECRET_KEY: TEST_SECRET, ROUTER_APP_URL: `${site.url}/app`, ...BILLING_ENV };
    router = await startRouterProcess(env);
    const account = async (plan: string) => {
      const { account: created } = await runCliJson(env, 'accounts', 'create', '--email', `probe-${plan}@example.com`, '--plan', plan);
      for (const [provider, key] of Object.entries(PROVIDER_KEYS)) await runCliJson(env, 'provider-keys', 'set', '--account', created.id, '--provider', provider, '--key', key);
      return (await runCliJson(env, 'keys', 'create', '--account', created.id)).key as string;
    };
    keys = { pro: await account('pro'), free: await account('free') };
  }, 90_000);
  afterAll(async () => {
    await router?.stop();
    await fakes?.close();
    await site?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('passes every check with a key, follows every onboarding link, and writes a JUnit report', async () => {
    const junit = join(dataDir, 'probe.xml');
    const result = await probe('--key', keys.pro, '--json', '--junit', junit);
    const report = JSON.parse(result.stdout);
    expect(report.results.filter((r: { status: string }) => r.status !== 'pass')).toEqual([]);
    expect(result.code).toBe(0);
    expect(report).toMatchObject({ ok: true, outcome: 'passed', failed: 0, skipped: 0 });
    const names = report.results.map((r: { name: string }) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'anonymous GET /v1/models gets the guided 401',
        'edge rule: a bare library User-Agent is rejected with 1010',
        `link resolves: ${site.url}/app/keys`,
        `link resolves: ${site.url}/docs/errors`,
        `link resolves: ${site.url}/app/checkout?plan=pro`,
        'chat completion stream: SSE framing, usage chunk, [DONE]',
        'Responses stream: event order through response.completed',
        'tool call round trip',
        'Messages API (x-api-key, as Claude Code sends it)',
        'Messages stream: message_start … message_stop, each event named as its type',
        'Messages token count',
        'Messages API: a wrong key is a 401 in Anthropic’s shape with x-should-retry: false',
        'quota and rate-limit headers agree across two requests',
      ]),
    );
    expect(report.results.find((r: { name: string }) => r.name.startsWith('router/fusion')).detail).toBe('served');
    expect(site.visited).toEqual(expect.arrayContaining(['/app', '/app/keys', '/docs/errors', '/app/checkout']));
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain(`<testsuites name="router probe" tests="${report.results.length}" failures="0" skipped="0"`);
    expect(xml).toContain('<testcase classname="router.probe.authenticated" name="tool call round trip"');
    expect(result.stdout + result.stderr + xml).not.toContain(keys.pro);
  });

  it('accepts the plan error for router/fusion when the key’s plan does not include it', async () => {
    const result = await probe('--key', keys.free, '--json');
    expect(result.code).toBe(0);
    const fusion = JSON.parse(result.stdout).results.find((r: { name: string }) => r.name.startsWith('router/fusion'));
    expect(fusion).toMatchObject({ status: 'pass', detail: 'plan_upgrade_required, as the plan has no fusion' });
  });

  it('fails, naming the link, when an onboarding page answers 404', async () => {
    site.failing.add('/docs/errors');
    try {
      const result = await probe('--public-only', '--json');
      expect(result.code).toBe(1);
      const failed = JSON.parse(result.stdout).results.filter((r: { status: string }) => r.status === 'fail');
      expect(failed).toEqual([
        expect.objectContaining({
          name: `link resolves: ${site.url}/docs/errors`,
          failure: { request: `GET ${site.url}/docs/errors`, response: '404', expected: '2xx for the link in guided 401 docsUrl' },
        }),
      ]);
    } finally {
      site.failing.clear();
    }
  });

  it('reports the model checks as skipped and the probe incomplete without a key, complete with --public-only', async () => {
    const incomplete = await probe('--json');
    expect(incomplete.code).toBe(3);
    const report = JSON.parse(incomplete.stdout);
    expect(report).toMatchObject({ ok: false, outcome: 'incomplete', failed: 0, skipped: 12 });
    expect(report.results.filter((r: { status: string }) => r.status === 'skip').every((r: { detail: string }) => r.detail.includes('needs --key'))).toBe(true);
    const publicOnly = await probe('--public-only', '--json');
    expect(publicOnly.code).toBe(0);
    expect(JSON.parse(publicOnly.stdout)).toMatchObject({ ok: true, outcome: 'passed', skipped: 12 });
  });

  it('fails from the first authenticated check with a revoked key, saying what came back', async () => {
    const { account } = await runCliJson(env, 'accounts', 'create', '--email', 'probe-revoked@example.com', '--plan', 'pro');
    const { id, key } = await runCliJson(env, 'keys', 'create', '--account', account.id);
    await runCliJson(env, 'keys', 'revoke', id);
    const result = await probe('--key', key, '--json');
    expect(result.code).toBe(1);
    const models = JSON.parse(result.stdout).results.find((r: { name: string }) => r.name.startsWith('GET /v1/models'));
    expect(models).toMatchObject({ status: 'fail', failure: { response: '401 revoked_api_key', expected: 'a 200 model list' } });
  });

  it('prints the request, the response status and code, and what it expected for a failing model check', async () => {
    fakes.openai.failAlways({ kind: 'status', status: 500 });
    try {
      const result = await probe('--key', keys.pro, '--json');
      expect(result.code).toBe(1);
      const chat = JSON.parse(result.stdout).results.find((r: { name: string }) => r.name === 'chat completion');
      expect(chat).toMatchObject({
        status: 'fail',
        failure: {
          request: `POST ${router.baseURL}/chat/completions with Bearer sk_router_…${keys.pro.slice(-4)}`,
          response: '502 all_upstreams_failed',
          expected: 'a 200 chat.completion for router/frontier',
        },
      });
      expect(result.stdout).not.toContain(keys.pro);
    } finally {
      fakes.openai.reset();
      fakes.openai.setReply({ toolCalls: [{ name: 'get_time', arguments: { city: 'Paris' } }], toolCallsWhenOffered: true });
    }
  });

  it('says in one line that a stopped router is not reachable at its URL, and exits 1', async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const junit = join(dataDir, 'unreachable.xml');
    const result = await runCli(env, 'probe', '--base-url', `http://127.0.0.1:${port}/v1`, '--junit', junit);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([`router: the router is not reachable at http://127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port})`]);
    expect(readFileSync(junit, 'utf8')).toContain('failures="1"');
    const json = await runCli(env, 'probe', '--base-url', `http://127.0.0.1:${port}`, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ error: { type: 'failure', message: `the router is not reachable at http://127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port})` } });
  });
});
