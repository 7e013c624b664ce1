/**
 * The README's quick start, run as written against a router started by `bin/router serve` with the
 * shipped configuration (its providers pointed at the fake upstreams): terminal 2's shell block line by
 * line (the placeholders `acct_…` and `sk_router_…` filled with what the earlier lines printed, as a
 * reader would), then the `openai` and `@anthropic-ai/sdk` snippets, and each printed value the README
 * states in a comment compared with what the router answers. A README edit that changes a command or a
 * promised output fails here. Needs the build (`npm test` builds first).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointProvidersAt, startFakes, startRouterProcess, writeConfigDir, type Fakes, type RouterProcess } from '../e2e/router-harness.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The fenced block of `language` that follows `marker` in the README. */
function blockAfter(marker: string, language: string): string {
  const at = README.indexOf(marker);
  expect(at, `README has "${marker}"`).toBeGreaterThan(-1);
  const open = README.indexOf('```' + language + '\n', at);
  return README.slice(open + language.length + 4, README.indexOf('\n```', open));
}

describe('the README quick start prints what it says it prints', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let router: RouterProcess;
  let env: Record<string, string>;
  let dataDir: string;
  let configDir: string;

  beforeAll(async () => {
    fakes = await startFakes();
    configDir = writeConfigDir({ providers: pointProvidersAt(fakes.urls) });
    dataDir = mkdtempSync(join(tmpdir(), 'readme-data-'));
    env = { ROUTER_CONFIG: configDir, ROUTER_STORAGE: `sqlite:${join(dataDir, 'router.db')}`, ROUTER_SECRET_KEY: 'readme-example-secret-0123456789abcdef' };
    router = await startRouterProcess(env);
  });
  afterAll(async () => {
    await router?.stop();
    await fakes?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  it('terminal 2: an account, a key, a provider key, and curl lists the models', async () => {
    const lines = blockAfter('In terminal 2:', 'sh')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'));
    expect(lines).toHaveLength(4);
    // A reader's shell, not the test runner's: consola quiets its printed lines when it sees a test environment.
    const shell = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|TEST$|NODE_ENV$)/.test(name)));
    const sh = (line: string) =>
      promisify(execFile)('bash', ['-c', line.replace('http://127.0.0.1:8787', router.url)], { cwd: ROOT, env: { ...shell, ...env, OPENAI_API_KEY: 'sk-proj-readme-4242' } });

    const { account } = JSON.parse((await sh(lines[0]!)).stdout);
    expect(account.id).toMatch(/^acct_/);
    expect(account.plan).toBe('pro');
    const key = JSON.parse((await sh(lines[1]!.replace('acct_…', account.id))).stdout);
    expect(key.key).toMatch(/^sk_router_/);
    await sh(lines[2]!.replace('acct_…', account.id));
    const models = JSON.parse((await sh(lines[3]!.replace('sk_router_…', key.key))).stdout);
    expect(models.object).toBe('list');
    expect(models.data.map((model: { id: string }) => model.id)).toContain('router/frontier');

    // The SDK snippet, with ROUTER_API_KEY set to that key: each commented output as the router gives it.
    const snippet = blockAfter('With the official `openai` SDK:', 'js');
    const client = new OpenAI({ apiKey: key.key, baseURL: `${router.url}/v1` });
    const listed = (await client.models.list()).data.map((m) => m.id);
    const promised = /console\.log\(\(await client\.models\.list\(\)\)[^;]*; \/\/ (.*)$/m.exec(snippet)![1]!;
    expect(promised).toContain("'router/frontier'");
    const ids = promised.match(/'[^']+'/g)!.map((quoted) => quoted.slice(1, -1));
    expect(listed.slice(0, ids.length)).toEqual(ids);
    // A "…" in the comment says the list goes on (concrete models follow the profiles); without one the list is whole.
    if (!promised.includes('…')) expect(listed).toHaveLength(ids.length);
    const reply = await client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(snippet).toContain('reply.model); // "...", "router/frontier"');
    expect(reply.model).toBe('router/frontier');
    expect(reply.choices[0]!.message.content).toBeTruthy();

    // The mail-off links: an invitation that creates the account, a reset for ada, each single use, printed.
    const links = blockAfter('resets and invitations are single-use links', 'sh').split('\n').filter((line) => line.trim() !== '');
    expect(links).toHaveLength(2);
    for (const line of links) {
      const printed = (await sh(line)).stdout;
      expect(printed, line).toMatch(/single use, valid until .+:\nhttp:\/\/\S+\/app\/link\?token=[\w-]+\n/);
    }
    expect(README).toContain('(stored hashed, valid 30 minutes)');

    // The Anthropic snippet at the same key and the router's root URL.
    const anthropic = new Anthropic({ apiKey: key.key, baseURL: router.url });
    const message = await anthropic.messages.create({ model: 'router/frontier', max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello' }] });
    expect(message.content[0]!.type).toBe('text');
  });

  it('terminal 1 says where it listens: the address the README names', async () => {
    // The README's comment promises http://127.0.0.1:8787 for `npm start`; the shipped server.yaml must agree.
    expect(blockAfter('## Quick start', 'sh')).toContain('# terminal 1: http://127.0.0.1:8787');
    const server = readFileSync(join(ROOT, 'config/server.yaml'), 'utf8');
    expect(server).toMatch(/^ {2}host: 127\.0\.0\.1$/m);
    expect(server).toMatch(/^ {2}port: 8787$/m);
    expect(router.output()).toContain(router.url);
  });
});
