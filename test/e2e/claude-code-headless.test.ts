/**
 * Claude Code itself (`claude -p … --output-format json`) against the router, served in turn by the
 * OpenAI-format, Anthropic (native pass-through) and Gemini fakes: the two environment variables a user
 * sets are all it needs, and a tool round trip (its Read tool on a file in its working folder) completes. Its native binary is placed by the package's
 * install.cjs (npm skips the postinstall); HOME is a temporary folder so no user settings leak in.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProvider } from '../fakes/fake-provider.js';
import { PROVIDER_KEYS, UPSTREAM_MODEL, frontierOrder, pointProvidersAt, startFakes, startTestRouter, type Fakes, type ProviderId, type TestRouter } from './router-harness.js';

const PACKAGE = new URL('../../node_modules/@anthropic-ai/claude-code/', import.meta.url).pathname;
const BINARY = join(PACKAGE, 'bin', 'claude.exe');

/** Places the native binary once per checkout, as the package's postinstall would. */
function installClaudeCode(): Promise<void> {
  if (existsSync(BINARY)) return Promise.resolve();
  return new Promise((resolve, reject) => execFile(process.execPath, [join(PACKAGE, 'install.cjs')], { timeout: 120_000 }, (error) => (error ? reject(error) : resolve())));
}

interface ClaudeRun {
  code: number;
  result: { is_error?: boolean; result?: string; [key: string]: unknown } | undefined;
  stderr: string;
}

function runClaude(router: TestRouter, key: string, home: string, cwd: string, prompt: string, extraEnv: Record<string, string> = {}): Promise<ClaudeRun> {
  const env = {
    ...extraEnv,
    PATH: process.env.PATH ?? '',
    HOME: home,
    ANTHROPIC_BASE_URL: router.url,
    ANTHROPIC_API_KEY: key,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  return new Promise((resolve) => {
    execFile(BINARY, ['-p', prompt, '--output-format', 'json'], { env, cwd, timeout: 90_000 }, (error, stdout, stderr) => {
      let result: ClaudeRun['result'];
      try {
        result = JSON.parse(stdout);
      } catch {
        result = undefined;
      }
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, result, stderr: `${stderr}\n${stdout}` });
    });
  });
}

/** The text of an upstream request, whatever its format, to find what Claude Code sent through it. */
const sentText = (fakes: Fakes, provider: ProviderId) => JSON.stringify(fakes[provider].requests.at(-1)?.body ?? null);

/** Where each format carries the id of the tool call a result answers: the fakes' own ids, or Gemini's function name. */
const TOOL_RESULT_MARK: Record<ProviderId, string> = { openai: 'call_fake0', anthropic: 'toolu_', gemini: 'functionResponse' };

describe.each(['openai', 'anthropic', 'gemini'] as const)('Claude Code headless through the router, the %s upstream serving', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  const folders: string[] = [];
  const folder = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  };

  beforeAll(async () => {
    await installClaudeCode();
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder([provider]) } });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
  }, 150_000);
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('answers a prompt with the upstream’s text, reaching the route through its own model name', async () => {
    fakes[provider].setReply({ text: 'Hello from the router.' });
    const run = await runClaude(router, key, folder('claude-home-'), folder('claude-work-'), 'Say hello');
    expect(run.result, run.stderr).toMatchObject({ is_error: false, result: 'Hello from the router.' });
    expect(fakes[provider].requests.length).toBeGreaterThan(0);
    if (provider !== 'gemini') expect(fakes[provider].requests.every((request) => (request.body as { model: string }).model === UPSTREAM_MODEL[provider])).toBe(true);
    else expect(fakes.gemini.requests.every((request) => request.path.includes(UPSTREAM_MODEL.gemini))).toBe(true);
  }, 120_000);

  it('completes a tool round trip: the model asks to Read a file, Claude Code reads it, the contents reach the upstream', async () => {
    const work = folder('claude-work-');
    const file = join(work, 'notes.txt');
    writeFileSync(file, 'The secret word is pelican.\n');
    fakes[provider].setReply({ text: 'The file says pelican.', toolCalls: [{ name: 'Read', arguments: { file_path: file } }], toolCallsWhenOffered: true });
    const run = await runClaude(router, key, folder('claude-home-'), work, 'What does notes.txt say?');
    expect(run.result, run.stderr).toMatchObject({ is_error: false, result: 'The file says pelican.' });
    const last = sentText(fakes, provider);
    expect(last).toContain('pelican');
    expect(last).toContain(TOOL_RESULT_MARK[provider]);
  }, 120_000);

  it('fails fast on a wrong key instead of retrying for minutes', async () => {
    const startedAt = Date.now();
    const run = await runClaude(router, 'sk_router_wrongwrongwrongwrongwrongwrongwrong0000', folder('claude-home-'), folder('claude-work-'), 'Say hello');
    expect(run.result?.is_error ?? run.code !== 0, run.stderr).toBe(true);
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    expect(fakes[provider].requests).toHaveLength(0);
  }, 120_000);
});

/** The reasoning control each format's request carries, or undefined. */
const REASONING_CONTROL: Record<'openai' | 'gemini', (body: any) => unknown> = {
  openai: (body) => body?.reasoning_effort,
  gemini: (body) => body?.generationConfig?.thinkingConfig,
};
const REASONING_MODEL = { openai: 'gpt-5', gemini: 'gemini-2.5-pro' } as const;
const THOUGHTS = 'The user wants the file read; the Read tool does that.';

describe.each(['openai', 'gemini'] as const)('Claude Code with thinking on, the %s upstream alone serving', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  let fake: FakeProvider;
  const folders: string[] = [];
  const folder = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  };

  beforeAll(async () => {
    await installClaudeCode();
    fakes = await startFakes();
    fake = fakes[provider];
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls),
        // Both models reason, as the shipped catalog says (Gemini's budgets are its thinkingBudget range).
        catalog: (doc: any) => {
          for (const model of doc.models) {
            if (model.model === 'gpt-5') model.reasoning = {};
            if (model.model === 'gemini-2.5-pro') model.reasoning = { minimal: 128, low: 1024, medium: 8192, high: 24576, xhigh: 32768 };
          }
        },
        routes: (doc: any) => {
          const frontier = doc.routes.find((route: { id: string }) => route.id === 'router/frontier');
          frontier.tiers = [[{ provider, model: REASONING_MODEL[provider] }]];
        },
      },
    });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
  }, 150_000);
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('sends the upstream its reasoning control, gets thinking blocks back and completes a tool round trip', async () => {
    const work = folder('claude-work-');
    const file = join(work, 'notes.txt');
    writeFileSync(file, 'The secret word is pelican.\n');
    fake.setReply({ text: 'The file says pelican.', thoughts: THOUGHTS, toolCalls: [{ name: 'Read', arguments: { file_path: file } }], toolCallsWhenOffered: true });
    const run = await runClaude(router, key, folder('claude-home-'), work, 'What does notes.txt say?', { MAX_THINKING_TOKENS: '8000' });
    expect(run.result, run.stderr).toMatchObject({ is_error: false, result: 'The file says pelican.' });
    const asked = fake.requests.map((request) => REASONING_CONTROL[provider](request.body)).filter((control) => control !== undefined);
    expect(asked.length).toBeGreaterThan(0);
    // What Claude Code asks depends on its version (a budget, or adaptive thinking with an effort); either maps to a control.
    for (const control of asked) {
      if (provider === 'openai') expect(['low', 'medium', 'high']).toContain(control);
      else expect(control).toMatchObject({ thinkingBudget: expect.any(Number), includeThoughts: true });
    }
    const last = JSON.stringify(fake.requests.at(-1)?.body ?? null);
    expect(last).toContain('pelican');
    // Claude Code kept the thinking block and sent it back: its thoughts reach the next turn, and Gemini its own signature.
    if (provider === 'openai') expect(last).toContain(THOUGHTS);
    else expect(last).toMatch(/"thoughtSignature":"(?!skip_thought_signature_validator)[^"]+"/);
  }, 120_000);
});
