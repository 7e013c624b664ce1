/**
 * The docs check: every `router …` command and option, every ROUTER_* variable and every endpoint that
 * README.md and docs/ name must exist in the built CLI, in the code, and on a running router. It reads
 * the names from the docs and the facts from the program, so new commands, flags, variables and
 * endpoints are covered without editing this file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRouter, type TestRouter } from '../e2e/router-harness.js';
import { extractDocClaims } from './doc-claims.js';
import { PROJECT_ROOT, builtCliInspector, documentationPages, projectEnvReads } from './inspect-project.js';
import { formatDocProblem, verifyDocClaims, type RunningRouter } from './verify-doc-claims.js';

const UA = { 'user-agent': 'router-docs-check/1.0' };

describe('README.md and docs/ name only commands, options, variables and endpoints that exist', () => {
  let router: TestRouter;
  let running: RunningRouter;
  const program = builtCliInspector();
  const envReads = projectEnvReads();

  beforeAll(async () => {
    router = await startTestRouter();
    const { key, keyId, accountId } = await router.createAccount('pro');
    // {slug} and {version}: a preset of the account, so the preset reads answer 200 (writes: 403, ordinary key).
    await router.server.runtime.store.savePreset({ accountId, slug: 'example', config: { temperature: 0.5 } }, 'test');
    const headers = { ...UA, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const family = ((await (await fetch(`${router.url}/model-catalog`, { headers: UA })).json()) as { families: Array<{ id: string }> }).families[0]!.id;
    const model = ((await (await fetch(`${router.baseURL}/models`, { headers })).json()) as { data: Array<{ id: string }> }).data[0]!.id;
    running = {
      // {hash}: a key id of the account (an ordinary key, so the key API answers 403, never changes it).
      pathExamples: { family, id: model, model, hash: keyId, slug: 'example', version: '1' },
      async statusOf(method, path) {
        // POST an empty object: enough to reach the endpoint (it answers 400), never a model call.
        const response = await fetch(`${router.url}${path}`, { method, headers, ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{}' }) });
        if (response.status !== 404) {
          await response.body?.cancel();
          return response.status;
        }
        // A 404 for a missing thing at an endpoint that exists (unknown_model, …) is not a missing endpoint.
        const code = await response.json().then((body) => (body as { error?: { code?: string } }).error?.code, () => undefined);
        return code === undefined || code === 'not_found' ? 404 : 200;
      },
    };
  });
  afterAll(async () => {
    await router.close();
  });

  it('finds nothing missing in the shipped docs', async () => {
    const pages = documentationPages().map((file) => extractDocClaims(file, readFileSync(join(PROJECT_ROOT, file), 'utf8')));
    const claims = pages.reduce((sum, page) => sum + page.cli.length + page.env.length + page.endpoints.length, 0);
    expect(claims, 'the docs make claims to check').toBeGreaterThan(50);
    const problems = await verifyDocClaims(pages, { program, envReads, router: running });
    expect(problems.map(formatDocProblem)).toEqual([]);
  });

  it('reports a page that names a command, option, variable or endpoint that does not exist', async () => {
    // Built at run time so that no file of the project contains the invented variable name.
    const invented = ['ROUTER', 'NOT', 'READ', 'ANYWHERE'].join('_');
    const page = [
      'Start with `router serve --config DIR`, then `router frobnicate`.',
      '| `router keys create --account ID --colour red` / `list --account ID` / `shred KEY_ID` | keys |',
      '',
      '```sh',
      `${invented}=1 ./bin/router check --strict`,
      '```',
      '',
      `Set \`ROUTER_SECRET_KEY\` and \`${invented}\`.`,
      '',
      '| GET | `/readyz` | ready |',
      '| GET | `/v1/frobs` | no such thing |',
      'POST /v1/chat/completions, and GET /nowhere',
    ].join('\n');
    const problems = await verifyDocClaims([extractDocClaims('invented.md', page)], { program, envReads, router: running });
    const commandsOf = async (path: string[]) => (await program.describeCommand(path))?.subcommands.join(', ');
    expect(problems.map(formatDocProblem)).toEqual([
      `invented.md:1 router frobnicate is not a command (router has: ${await commandsOf([])})`,
      'invented.md:2 router keys create has no option --colour',
      `invented.md:2 router keys shred is not a command (router keys has: ${await commandsOf(['keys'])})`,
      'invented.md:5 router check has no option --strict',
      `invented.md:5 ${invented} is not read anywhere in the project`,
      `invented.md:8 ${invented} is not read anywhere in the project`,
      'invented.md:11 GET /v1/frobs answers 404: no such endpoint',
      'invented.md:12 GET /nowhere answers 404: no such endpoint',
    ]);
  });
});
