/** The docs checker's own parts, on small invented pages, a fake program and a fake router. */
import { describe, expect, it } from 'vitest';
import { extractDocClaims } from './doc-claims.js';
import { inspectorFromTree } from './inspect-project.js';
import { formatDocProblem, verifyDocClaims, type CommandHelp, type ProgramInspector, type RunningRouter } from './verify-doc-claims.js';

const PAGE = [
  '# Tool',
  'Run `router serve --config DIR`; see `router:fusion` and `router/frontier`, which are not commands.',
  '| `router keys create --account ID` / `rotate KEY_ID [--grace S]` | keys |',
  '',
  '```sh',
  'export ROUTER_SECRET_KEY=x   # a comment naming router nothing',
  'ROUTER_PORT=9 ./bin/router accounts create \\',
  '  --email a@b.c <<< "$SECRET" && npm test',
  '```',
  '',
  '```text',
  'bin/router                 the launcher (a tree, not a command)',
  '```',
  '',
  '```js',
  "new OpenAI({ apiKey: process.env.ROUTER_API_KEY, baseURL: 'http://127.0.0.1:8787/v1' });",
  '```',
  '',
  '| GET | `/status` | circuits |',
  '| any | other `/v1/*` | 404 |',
  'Use `POST /v1/responses`; the upstream gets `POST {baseUrl}/responses`; `/v1/models` lists; see https://h.example/v1/files.',
].join('\n');

describe('extractDocClaims', () => {
  const claims = extractDocClaims('page.md', PAGE);

  it('finds router invocations in code spans, their / siblings and shell blocks, and nothing else', () => {
    expect(claims.cli.map((claim) => [claim.line, claim.words.join(' '), claim.continues?.words.join(' ')])).toEqual([
      [2, 'serve --config DIR', undefined],
      [3, 'keys create --account ID', undefined],
      [3, 'rotate KEY_ID [--grace S]', 'keys create --account ID'],
      [7, 'accounts create --email a@b.c', undefined],
    ]);
  });

  it('finds ROUTER_* names, and the ones client snippets read', () => {
    expect(claims.env.map(({ line, name }) => `${line} ${name}`)).toEqual(['6 ROUTER_SECRET_KEY', '7 ROUTER_PORT', '16 ROUTER_API_KEY']);
    expect([...claims.clientEnv]).toEqual(['ROUTER_API_KEY']);
  });

  it('finds endpoints with and without a method, but not wildcards, upstream paths or URLs', () => {
    expect(claims.endpoints).toEqual([
      { line: 19, method: 'GET', path: '/status' },
      { line: 21, method: 'POST', path: '/v1/responses' },
      { line: 21, path: '/v1/models' },
    ]);
  });
});

describe('inspectorFromTree', () => {
  const help = { flag: '--help', takesValue: false };
  const inspector = inspectorFromTree({
    name: 'router',
    aliases: [],
    options: [help],
    commands: [
      {
        name: 'keys',
        aliases: ['k'],
        options: [help],
        commands: [{ name: 'create', aliases: [], options: [{ flag: '--account', takesValue: true }, help], commands: [] }],
      },
    ],
  });

  it('describes each command by its path, aliases included', async () => {
    expect((await inspector.describeCommand([]))?.subcommands).toEqual(['keys', 'k']);
    const create = await inspector.describeCommand(['k', 'create']);
    expect(create?.subcommands).toEqual([]);
    expect(Object.fromEntries(create?.options ?? [])).toEqual({ '--account': { takesValue: true }, '--help': { takesValue: false } });
  });

  it('knows no command that is not in the tree', async () => {
    expect(await inspector.describeCommand(['keys', 'shred'])).toBeUndefined();
    expect(await inspector.describeCommand(['shred', 'keys'])).toBeUndefined();
  });
});

describe('verifyDocClaims', () => {
  const commands: Record<string, CommandHelp> = {
    '': { subcommands: ['serve', 'keys'], options: new Map([['--help', { takesValue: false }]]) },
    serve: { subcommands: [], options: new Map([['--config', { takesValue: true }]]) },
    keys: { subcommands: ['create', 'rotate'], options: new Map() },
    'keys create': { subcommands: [], options: new Map([['--account', { takesValue: true }]]) },
    'keys rotate': { subcommands: [], options: new Map([['--grace', { takesValue: true }]]) },
  };
  const program: ProgramInspector = { describeCommand: async (path) => commands[path.join(' ')] };
  const router: RunningRouter = {
    pathExamples: { family: 'frontier' },
    statusOf: async (method, path) => (['GET /status', 'GET /model-catalog/frontier', 'POST /v1/responses'].includes(`${method} ${path}`) ? 200 : 404),
  };
  const envReads = new Set(['ROUTER_SECRET_KEY', 'ROUTER_PORT']);
  const check = (markdown: string) => verifyDocClaims([extractDocClaims('page.md', markdown)], { program, envReads, router }).then((found) => found.map(formatDocProblem));

  it('passes a page that names only what exists', async () => {
    expect(await check(PAGE.replace('accounts create', 'keys create').replace('--email a@b.c', '--account A').replace('`/v1/models` lists; ', ''))).toEqual([]);
  });

  it('reports each command, option, variable and endpoint that does not exist, at its line', async () => {
    const page = [
      '`router serve --port 1` and `router frobnicate` and `router keys create --account A` / `shred K`',
      'Set `ROUTER_PORT` and `ROUTER_NOPE`.',
      '| GET | `/model-catalog/{family}` | ok |',
      '| GET | `/v1/things/{thing}` | no example |',
      'GET /nowhere',
    ].join('\n');
    expect(await check(page)).toEqual([
      'page.md:1 router serve has no option --port',
      'page.md:1 router frobnicate is not a command (router has: serve, keys)',
      'page.md:1 router keys shred is not a command (router keys has: create, rotate)',
      'page.md:2 ROUTER_NOPE is not read anywhere in the project',
      'page.md:4 /v1/things/{thing}: no example value for {thing} to try it with',
      'page.md:5 GET /nowhere answers 404: no such endpoint',
    ]);
  });
});
