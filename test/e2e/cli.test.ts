import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRouter, waitFor, type TestRouter } from './router-harness.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/router', import.meta.url).pathname;
const UA = { 'user-agent': 'router-tests/1.0' };

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

// A test runs the CLI up to eight times, each a new Node process loading the router (2 to 3 s apiece on a
// loaded CI machine, where 20 s ran out): a bound per test that such a machine stays inside.
describe('the router CLI (built bin/router, real processes)', { timeout: 60_000 }, () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const cli = async (...args: string[]): Promise<CliResult> => {
    try {
      const { stdout, stderr } = await run('node', [BIN, ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const json = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'router-cli-'));
    env = { ...process.env, ROUTER_STORAGE: `sqlite:${join(dataDir, 'router.db')}`, ROUTER_SECRET_KEY: 'cli-test-secret-0123456789abcdef', CONSOLA_LEVEL: '3' };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates accounts and keys and prints exactly one JSON document with --json', async () => {
    const { account } = await json('accounts', 'create', '--email', 'ada@example.com', '--plan', 'pro');
    expect(account).toMatchObject({ email: 'ada@example.com', plan: 'pro', status: 'active' });
    expect(account.id).toMatch(/^acct_/);
    const created = await json('keys', 'create', '--account', account.id, '--name', 'laptop');
    expect(created.key).toMatch(/^sk_router_[0-9A-Za-z]{38}$/);
    expect(created.id).toMatch(/^key_/);
    const { keys } = await json('keys', 'list', '--account', account.id);
    expect(keys).toHaveLength(1);
    expect(keys[0].display).toBe(`sk_router_…${created.key.slice(-4)}`);
    expect(JSON.stringify(keys)).not.toContain(created.key);
    expect(keys[0].kind).toBe('inference');
    const management = await json('keys', 'create', '--account', account.id, '--name', 'provisioning', '--management');
    expect(management.apiKey.kind).toBe('management');
    const { accounts } = await json('accounts', 'list');
    expect(accounts.map((a: { email: string }) => a.email)).toContain('ada@example.com');
    const { account: moved } = await json('accounts', 'set-plan', account.id, 'max');
    expect(moved.plan).toBe('max');
    const { account: off } = await json('accounts', 'deactivate', account.id);
    expect(off.status).toBe('inactive');
  });

  it('prints single-use invite and reset links (stored hashed) and refuses ones it cannot honour', async () => {
    const { link: invite } = await json('accounts', 'invite', '--email', 'New.Person@example.com');
    expect(invite).toMatchObject({ kind: 'invite', email: 'new.person@example.com', accountId: null });
    // The address the README gives, on the port the server is configured to listen on.
    expect(invite.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/app\/link\?token=[A-Za-z0-9_-]{43}$/);
    const elsewhere = await run('node', [BIN, 'accounts', 'invite', '--email', 'other.port@example.com', '--json'], { env: { ...env, ROUTER_PORT: '9123' } });
    expect(JSON.parse(elsewhere.stdout).link.url).toMatch(/^http:\/\/127\.0\.0\.1:9123\/app\/link\?token=/);
    expect(Date.parse(invite.expiresAt) - Date.now()).toBeLessThanOrEqual(30 * 60_000);
    const { account } = await json('accounts', 'create', '--email', 'reset.me@example.com', '--plan', 'free');
    const { link: reset } = await json('accounts', 'reset-link', '--email', 'reset.me@example.com');
    expect(reset).toMatchObject({ kind: 'reset', accountId: account.id });
    const human = await cli('accounts', 'reset-link', '--email', 'reset.me@example.com');
    expect(human.code).toBe(0);
    expect(human.stdout + human.stderr).toMatch(/\/app\/link\?token=/);
    const missing = await cli('accounts', 'reset-link', '--email', 'nobody@example.com');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no account has the email nobody@example.com');
    expect((await cli('accounts', 'invite', '--email', 'not-an-email')).code).toBe(2);
  });

  it('serve --json prints only the listening document on stdout; the account app\'s http note goes to stderr', async () => {
    const child = spawn('node', [BIN, 'serve', '--json'], { env: { ...env, ROUTER_PORT: '0', ROUTER_HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    try {
      const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      expect(JSON.parse(first)).toMatchObject({ listening: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), storage: 'sqlite' });
      await waitFor(() => stderr.includes('served over http'));
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('changes a plan even when the Redis of the quota gate is unreachable, and warns how long instances may take to see it', async () => {
    const { account } = await json('accounts', 'create', '--email', 'grace@example.com', '--plan', 'free');
    const saved = env;
    // A closed port, and a password that must not be echoed.
    env = { ...env, ROUTER_REDIS_URL: 'redis://:hunter2-redis@127.0.0.1:1' };
    try {
      const result = await cli('accounts', 'set-plan', account.id, 'pro', '--json');
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).account.plan).toBe('pro');
      expect(result.stderr).toContain(`account ${account.id} changed, but Redis could not be told`);
      expect(result.stderr).not.toContain('hunter2-redis');
    } finally {
      env = saved;
    }
    const { accounts } = await json('accounts', 'list');
    expect(accounts.find((listed: { id: string }) => listed.id === account.id).plan).toBe('pro');
  });

  it('exits 2 with a usage message on bad arguments', async () => {
    const missing = await cli('accounts', 'create', '--email', 'x@example.com');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--plan');
    const badPlan = await cli('accounts', 'create', '--email', 'x@example.com', '--plan', 'platinum');
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain("unknown plan 'platinum'");
    const badGrace = await cli('keys', 'rotate', 'key_x', '--grace', 'soon');
    expect(badGrace.code).toBe(2);
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
  });

  it('exits 1 with a one-line reason on operational failures', async () => {
    const result = await cli('keys', 'revoke', 'key_doesnotexist');
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('key_doesnotexist');
  });

  it('prints the usage text once on a validation error', async () => {
    const result = await cli('accounts', 'create', '--email', 'not-an-email', '--plan', 'pro');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'not-an-email' is not one plain email address");
    expect(result.stderr.match(/Usage: router accounts create/g)).toHaveLength(1);
  });

  it('refuses address-list syntax, display names and bare names at every --email, storing nothing', async () => {
    // Each a separate process: the three list forms of the issue (the validator's own property test covers the rest).
    for (const email of ['x<you@example.org>', 'x,you@example.org', 'g:you@example.org;']) {
      for (const command of [['accounts', 'create', '--plan', 'pro'], ['accounts', 'invite'], ['accounts', 'reset-link']]) {
        const result = await cli(...command, '--email', email);
        expect(result.code, `${command.join(' ')} ${email}`).toBe(2);
        expect(result.stderr).toContain('is not one plain email address');
      }
    }
    const { accounts } = await json('accounts', 'list');
    expect(accounts.filter((account: { email: string }) => account.email.includes('you'))).toEqual([]);
  }, 60_000);

  it('fails listing the keys or provider keys of an account that does not exist', async () => {
    for (const command of [['keys', 'list'], ['provider-keys', 'list']]) {
      const result = await cli(...command, '--account', 'acct_nope');
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe('router: account acct_nope not found');
    }
  });

  it('with --json, prints one JSON error document on failure as well', async () => {
    const failed = await cli('keys', 'revoke', 'key_nope', '--json');
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toEqual({ error: { type: 'failure', message: 'api key key_nope not found' } });
    const usage = await cli('accounts', 'create', '--email', 'x@example.com', '--plan', 'platinum', '--json');
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({ error: { type: 'usage', message: "unknown plan 'platinum' (plans: free, pro, max)" } });
    const missing = await cli('accounts', 'create', '--json');
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ type: 'usage', message: expect.stringContaining('--email') });
  });

  it('says the key read from standard input is empty', async () => {
    const { account } = await json('accounts', 'create', '--email', 'stdin@example.com', '--plan', 'pro');
    const child = execFile('node', [BIN, 'provider-keys', 'set', '--account', account.id, '--provider', 'openai', '--key-stdin'], { env });
    child.stdin!.end('\n');
    const stderr = await new Promise<string>((resolve) => {
      let text = '';
      child.stderr!.on('data', (chunk) => void (text += chunk));
      child.on('close', () => resolve(text));
    });
    expect(child.exitCode).toBe(2);
    expect(stderr).toContain('the provider key read from standard input is empty');
  });

  it('says "address in use" when the port is taken', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const saved = env;
    env = { ...env, ROUTER_PORT: String(port) };
    try {
      const result = await cli('serve');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`router: address in use: 127.0.0.1:${port}`);
    } finally {
      env = saved;
      blocker.close();
    }
  });

  it('stores provider keys encrypted and lists only their last 4 characters', async () => {
    const { account } = await json('accounts', 'create', '--email', 'byok@example.com', '--plan', 'pro');
    const secret = 'sk-ant-api03-very-secret-value-WXYZ';
    const { providerKey } = await json('provider-keys', 'set', '--account', account.id, '--provider', 'anthropic', '--key', secret);
    expect(providerKey).toMatchObject({ provider: 'anthropic', display: '…WXYZ' });
    const listed = await cli('provider-keys', 'list', '--account', account.id, '--json');
    expect(listed.stdout).not.toContain('very-secret');
    expect(JSON.parse(listed.stdout).providerKeys).toHaveLength(1);
    const removed = await json('provider-keys', 'remove', '--account', account.id, '--provider', 'anthropic');
    expect(removed.removed.provider).toBe('anthropic');
  });

  it('says in one line that a configuration directory does not exist', async () => {
    const missing = join(dataDir, 'no-such-config');
    const result = await cli('check', '--config', missing);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([`${missing}:0:0 configuration directory not found: pass --config <dir> or set ROUTER_CONFIG to the directory holding server.yaml, plans.yaml and the rest`]);
    const report = JSON.parse((await cli('check', '--config', missing, '--json')).stdout);
    expect(report).toMatchObject({ ok: false, problems: [{ file: missing, message: expect.stringContaining('configuration directory not found') }] });
    expect(report.problems).toHaveLength(1);
  });

  it('fails, writing nothing, when the support bundle is asked for a request id the ledger does not hold', async () => {
    const out = join(dataDir, 'bundle.json');
    const result = await cli('support-bundle', '--request-id', 'req_unknown0000', '--out', out);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'router: no ledger record of request req_unknown0000: check the id (the X-Request-Id of the response); records are kept 30 days, and a request refused before admission has none. No bundle written',
    ]);
    expect(existsSync(out)).toBe(false);
    const json = await cli('support-bundle', '--request-id', 'req_unknown0000', '--out', out, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error.message).toContain('no ledger record of request req_unknown0000');
    expect((await cli('support-bundle', '--out', out)).code).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it('prints a header row above the audit events', async () => {
    const result = await cli('audit', '--limit', '3');
    expect(result.code).toBe(0);
    const [header, ...events] = result.stdout.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['at', 'actor', 'action', 'subject', 'details']);
    expect(events).toHaveLength(3);
    for (const line of events) expect(line.slice(0, header!.indexOf('actor'))).toMatch(/^\d{4}-\d\d-\d\dT\S+Z\s+$/);
  });

  it('validates the shipped configuration with router check', async () => {
    const result = await cli('check');
    expect(result.code).toBe(0);
    const report = await json('check');
    expect(report.ok).toBe(true);
  });
});

describe('key changes made by the CLI reach a running router within the key cache TTL', () => {
  let router: TestRouter;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    router = await startTestRouter({ patch: { server: (doc) => void (doc.keyCacheTtlMs = 1000) } });
    env = { ...process.env, ROUTER_CONFIG: router.configDir, ROUTER_STORAGE: router.server.runtime.config.server.storage, ROUTER_SECRET_KEY: 'test-secret-key-for-router-e2e-0123456789' };
  });
  afterAll(async () => {
    await router.close();
  });

  const status = async (key: string) => (await fetch(`${router.baseURL}/models`, { headers: { ...UA, authorization: `Bearer ${key}` } })).status;
  const cliJson = async (...args: string[]) => JSON.parse((await run('node', [BIN, ...args, '--json'], { env })).stdout);

  it('revocation from another process is enforced within the TTL', async () => {
    const { key, keyId } = await router.createAccount('pro');
    expect(await status(key)).toBe(200);
    await cliJson('keys', 'revoke', keyId);
    const revokedAt = Date.now();
    while ((await status(key)) === 200) {
      expect(Date.now() - revokedAt).toBeLessThan(1000 + 500);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await status(key)).toBe(401);
  });

  it('makes a management key with --management that manages the account’s keys on the running router and never calls a model', async () => {
    const { accountId } = await router.createAccount('pro');
    const made = await cliJson('keys', 'create', '--account', accountId, '--name', 'provisioning', '--management');
    expect(made.apiKey).toMatchObject({ id: made.id, kind: 'management', accountId });
    const send = (method: string, path: string, body?: unknown) =>
      fetch(`${router.baseURL}${path}`, { method, headers: { ...UA, authorization: `Bearer ${made.key}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const minted = await send('POST', '/keys', { name: 'customer-1', limit: 3 });
    expect(minted.status).toBe(201);
    const { data } = (await minted.json()) as { data: { hash: string } };
    const listed = (await (await send('GET', '/keys')).json()) as { data: Array<{ hash: string; is_management_key: boolean }> };
    expect(listed.data.find((key) => key.hash === made.id)).toMatchObject({ is_management_key: true });
    expect(listed.data.map((key) => key.hash)).toContain(data.hash);
    const chat = await send('POST', '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(403);
    expect(((await chat.json()) as { error: { code: string } }).error.code).toBe('management_key_not_allowed');
    // Who made what: the CLI the management key, the management key the customer's.
    const audit = await router.server.runtime.store.listAuditEvents({ accountId });
    expect(audit.filter((event) => event.action === 'key.create').map((event) => [event.actor, event.keyId])).toEqual(expect.arrayContaining([['cli', made.id], [`key:${made.id}`, data.hash]]));
    // Said in words without --json.
    const human = await run('node', [BIN, 'keys', 'create', '--account', accountId, '--management'], { env: { ...env, CONSOLA_LEVEL: '3' } });
    expect(human.stdout + human.stderr).toMatch(/created management key key_[0-9a-f]+ for account/);
  });

  it('rotation without grace swaps keys; with grace the old key keeps working until it expires', async () => {
    const { key, keyId } = await router.createAccount('pro');
    const rotated = await cliJson('keys', 'rotate', keyId);
    expect(rotated.key).not.toBe(key);
    expect(await status(rotated.key)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await status(key)).toBe(401);

    const graceful = await router.createAccount('pro');
    const next = await cliJson('keys', 'rotate', graceful.keyId, '--grace', '2');
    expect(Date.parse(next.replaced.expiresAt) - Date.now()).toBeGreaterThan(1000);
    expect(await status(graceful.key)).toBe(200);
    expect(await status(next.key)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await status(graceful.key)).toBe(401);
    expect(await status(next.key)).toBe(200);
  });
});
