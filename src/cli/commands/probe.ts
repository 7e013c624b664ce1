/**
 * `router probe`: conformance probes against a live base URL, as a client would see it. Checks the
 * public metadata, the guided 401, the edge rule, and (with a key) the model list and limit headers;
 * `--traffic` also sends one chat completion (it counts against the key's quota).
 */
import type { Command } from 'commander';
import { ofetch } from 'ofetch';
import { describeError } from '../../core/describe-error.js';
import { emit, log } from '../cli-io.js';

interface ProbeResult {
  name: string;
  ok: boolean;
  detail: string;
}

interface ProbeOptions {
  baseUrl: string;
  key?: string;
  traffic?: boolean;
  model: string;
  json?: boolean;
}

const USER_AGENT = 'router-probe/0.1';

async function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const response = await ofetch.raw(url, {
    method: (init.method ?? 'GET') as 'GET',
    headers: { 'user-agent': USER_AGENT, ...init.headers },
    body: init.body as Record<string, unknown> | undefined,
    ignoreResponseError: true,
    retry: 0,
    timeout: 30_000,
    responseType: 'text',
  });
  let json: any;
  try {
    json = JSON.parse(String(response._data));
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json };
}

async function runProbes(options: ProbeOptions): Promise<ProbeResult[]> {
  const origin = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const results: ProbeResult[] = [];
  const check = async (name: string, run: () => Promise<string>) => {
    try {
      results.push({ name, ok: true, detail: await run() });
    } catch (error) {
      results.push({ name, ok: false, detail: describeError(error) });
    }
  };
  const expect = (condition: unknown, message: string) => {
    if (!condition) throw new Error(message);
  };

  await check('public pricing', async () => {
    const r = await request(`${origin}/pricing`);
    expect(r.status === 200 && Array.isArray(r.json?.plans), `GET /pricing answered ${r.status}`);
    return `${r.json.plans.length} plans`;
  });
  await check('public model catalog', async () => {
    const r = await request(`${origin}/model-catalog`);
    expect(r.status === 200 && Array.isArray(r.json?.families), `GET /model-catalog answered ${r.status}`);
    return `${r.json.families.length} families`;
  });
  await check('anonymous /v1/models is a guided 401', async () => {
    const r = await request(`${origin}/v1/models`);
    expect(r.status === 401, `expected 401, got ${r.status}`);
    expect(r.headers.get('www-authenticate'), 'no WWW-Authenticate header');
    expect(r.json?.error?.apiKeyPrefix && r.json?.error?.accountUrl, 'error lacks apiKeyPrefix/accountUrl');
    return r.json.error.code;
  });
  await check('edge rule rejects a bare client', async () => {
    const r = await request(`${origin}/v1/models`, { headers: { 'user-agent': '' } });
    expect(r.status === 403 && r.json?.error?.code === '1010', `expected 403 code 1010, got ${r.status} ${r.json?.error?.code}`);
    return 'code 1010';
  });
  if (options.key) {
    const auth = { authorization: `Bearer ${options.key}` };
    await check('authenticated /v1/models', async () => {
      const r = await request(`${origin}/v1/models`, { headers: auth });
      expect(r.status === 200 && r.json?.object === 'list', `expected a 200 list, got ${r.status}`);
      for (const header of ['x-quota-limit', 'x-quota-remaining', 'x-ratelimit-limit', 'x-ratelimit-remaining']) {
        expect(r.headers.get(header) !== null, `missing ${header}`);
      }
      return r.json.data.map((model: { id: string }) => model.id).join(', ');
    });
    if (options.traffic) {
      await check('chat completion', async () => {
        const r = await request(`${origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: { model: options.model, messages: [{ role: 'user', content: 'Reply with the word pong.' }], max_tokens: 16 },
        });
        expect(r.status === 200 && r.json?.object === 'chat.completion', `expected a chat.completion, got ${r.status} ${r.json?.error?.code ?? ''}`);
        return `served by ${r.headers.get('x-router-upstream')} after ${r.headers.get('x-router-retry-count')} retries`;
      });
    }
  }
  return results;
}

export function registerProbeCommand(program: Command): void {
  program
    .command('probe')
    .description('run conformance probes against a live router')
    .requiredOption('--base-url <url>', 'the router origin or its /v1 base URL')
    .option('--key <key>', 'a generated key for the authenticated probes (or $ROUTER_PROBE_KEY)')
    .option('--traffic', 'also send one chat completion (counts against the quota)')
    .option('--model <profile>', 'route profile for --traffic', 'router/frontier')
    .option('--json', 'print one JSON document')
    .action(async (options: ProbeOptions) => {
      const results = await runProbes({ ...options, key: options.key ?? process.env.ROUTER_PROBE_KEY });
      const ok = results.every((result) => result.ok);
      emit(options, { ok, results }, () => {
        for (const result of results) (result.ok ? log.success : log.fail)(`${result.name}: ${result.detail}`);
      });
      if (!ok) process.exitCode = 1;
    });
}
