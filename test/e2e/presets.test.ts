/**
 * Presets (issue 33) through the official openai SDK (raw `get`/`post` for /v1/presets) and plain HTTP:
 * management keys create and version them (also from a real request body, keeping only configuration
 * fields) and ordinary keys of the organization read them; a request uses one three ways, its own fields
 * override the preset's, the plan still decides which models it may reach, GET /v1/models lists the
 * owner's presets to the owner only, and the receipt names the preset and the version applied.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const UA = { 'user-agent': 'router-tests/1.0' };
const SYSTEM = 'You review code tersely.';
const HI = [{ role: 'user' as const, content: 'hi' }];

describe('presets', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let router: TestRouter;
  let org: { accountId: string; key: string; keyId: string };
  let other: { accountId: string; key: string; keyId: string };
  let free: { accountId: string; key: string; keyId: string };
  let admin: { key: string; id: string };
  let freeAdmin: string;

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${router.url}${path}`, {
      method,
      headers: { ...UA, authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const lastOpenAiBody = () => fakes.openai.requests.at(-1)!.body as Record<string, any>;
  /** The output cap as the OpenAI upstream got it (the router writes it in the host's own field). */
  const openAiCap = () => lastOpenAiBody().max_completion_tokens ?? lastOpenAiBody().max_tokens;
  const receiptOf = async (key: string, id: string) => {
    await router.server.runtime.usage.ledger!.flush();
    return ((await sdkClient(router, key).get('/generation', { query: { id } })) as { data: Record<string, unknown> }).data;
  };

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls) } });
    const keys = { providerKeys: { openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic } };
    org = await router.createAccount('pro', keys);
    other = await router.createAccount('pro', keys);
    free = await router.createAccount('free', keys);
    const issued = await router.server.runtime.keys.issue(org.accountId, 'provisioning', 'test', { kind: 'management' });
    admin = { key: issued.key, id: issued.record.id };
    freeAdmin = (await router.server.runtime.keys.issue(free.accountId, 'provisioning', 'test', { kind: 'management' })).key;
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('management keys write presets (plain JSON and from a real request body); ordinary keys of the organization read them; audited', async () => {
    const config = { model: 'openai/gpt-4.1', system: SYSTEM, temperature: 0.2, max_tokens: 300 };
    const refused = await call(org.key, 'POST', '/v1/presets', { slug: 'coder', config });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('management_key_required');

    const created = await call(admin.key, 'POST', '/api/v1/presets', { slug: 'coder', name: 'Code review', config });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ slug: 'coder', name: 'Code review', status: 'active', current_version: 1, designated_version: { version: 1, config } });
    expect(created.body.data.designated_version_id).toBe(created.body.data.designated_version.id);

    const invalid = await call(admin.key, 'POST', '/v1/presets', { slug: 'coder', config: { ...config, temperature: 7 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ code: 'invalid_request', param: 'config.temperature' });
    expect((await call(admin.key, 'POST', '/v1/presets', { slug: 'Bad Slug', config })).status).toBe(400);

    // A real request body: the conversation, stream and tools are dropped; its configuration is the new version.
    const fromRequest = await call(admin.key, 'POST', '/v1/presets/coder/chat/completions', {
      model: 'openai/gpt-4.1',
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'a private question' }],
      stream: true,
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
      temperature: 0.3,
      max_completion_tokens: 400,
    });
    expect(fromRequest.status).toBe(200);
    expect(fromRequest.body.data.designated_version).toMatchObject({ version: 2, config: { model: 'openai/gpt-4.1', system: SYSTEM, temperature: 0.3, max_tokens: 400 } });
    expect(JSON.stringify(fromRequest.body)).not.toContain('a private question');

    const reader = sdkClient(router, org.key);
    const list = (await reader.get('/presets')) as any;
    expect(list).toMatchObject({ total_count: 1, data: [{ slug: 'coder', current_version: 2 }] });
    expect(((await reader.get('/presets/coder')) as any).data.designated_version.config.temperature).toBe(0.3);
    expect(((await reader.get('/presets/coder/versions')) as any).data.map((version: any) => version.version)).toEqual([2, 1]);
    expect(((await reader.get('/presets/coder/versions/1')) as any).data.config).toEqual(config);
    // Another organization sees none of it.
    expect((await call(other.key, 'GET', '/v1/presets')).body).toEqual({ data: [], total_count: 0 });
    expect((await call(other.key, 'GET', '/v1/presets/coder')).status).toBe(404);
    expect((await call(other.key, 'GET', '/v1/presets/coder/versions/1')).status).toBe(404);

    const events = (await router.server.runtime.store.listAuditEvents({ accountId: org.accountId })).filter((event) => event.action.startsWith('preset.'));
    expect(events.map((event) => [event.action, event.actor])).toEqual(expect.arrayContaining([['preset.create', `key:${admin.id}`], ['preset.version', `key:${admin.id}`]]));
    expect(JSON.stringify(events)).not.toContain(SYSTEM);
  });

  it('applies as @preset/<slug>, <model>@preset/<slug> and a preset field; request fields override; the receipt names preset and version', async () => {
    const client = sdkClient(router, org.key);
    const whole = await client.chat.completions.create({ model: '@preset/coder', messages: HI }).withResponse();
    expect(lastOpenAiBody()).toMatchObject({ model: 'gpt-4.1', temperature: 0.3, messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'hi' }] });
    expect(openAiCap()).toBe(400);
    expect(await receiptOf(org.key, whole.response.headers.get('x-request-id')!)).toMatchObject({ preset: { slug: 'coder', version: 2 }, model: 'gpt-4.1' });

    // The preset applied to another model; the request's own temperature and system message win.
    await client.chat.completions.create({ model: 'anthropic/claude-sonnet-4.5@preset/coder', messages: [{ role: 'system', content: 'Mine.' }, ...HI], temperature: 1 });
    const anthropicBody = fakes.anthropic.requests.at(-1)!.body as Record<string, any>;
    expect(anthropicBody).toMatchObject({ model: 'claude-sonnet-4-5', temperature: 1, max_tokens: 400 });
    expect(JSON.stringify(anthropicBody.system)).toContain('Mine.');
    expect(JSON.stringify(anthropicBody)).not.toContain(SYSTEM);

    const field = await client.chat.completions.create({ model: 'openai/gpt-4.1', messages: HI, preset: 'coder', max_tokens: 50 } as any).withResponse();
    expect(lastOpenAiBody()).toMatchObject({ temperature: 0.3 });
    expect(openAiCap()).toBe(50);
    expect(lastOpenAiBody()).not.toHaveProperty('preset');
    expect((await receiptOf(org.key, field.response.headers.get('x-request-id')!)).preset).toEqual({ slug: 'coder', version: 2 });

    // Responses and Messages take the same preset in their own fields.
    const responses = await client.responses.create({ model: '@preset/coder', input: 'hi' }).withResponse();
    expect(JSON.stringify(lastOpenAiBody())).toContain(SYSTEM);
    expect((await receiptOf(org.key, responses.response.headers.get('x-request-id')!)).preset).toEqual({ slug: 'coder', version: 2 });
    const anthropic = new Anthropic({ apiKey: org.key, baseURL: router.url, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: '@preset/coder', messages: HI } as any).withResponse();
    expect(lastOpenAiBody()).toMatchObject({ model: 'gpt-4.1', temperature: 0.3 });
    expect(openAiCap()).toBe(400);
    expect((await receiptOf(org.key, message.response.headers.get('x-request-id')!)).preset).toEqual({ slug: 'coder', version: 2 });

    // A request without a preset has none on its receipt.
    const plain = await client.chat.completions.create({ model: 'openai/gpt-4.1', messages: HI }).withResponse();
    expect((await receiptOf(org.key, plain.response.headers.get('x-request-id')!)).preset).toBeNull();
  });

  it('stays within the plan, and refuses unknown or foreign presets with preset_not_found', async () => {
    const saved = await call(freeAdmin, 'POST', '/v1/presets', { slug: 'big', config: { model: 'openai/gpt-5', temperature: 0.5 } });
    expect(saved.status).toBe(201);
    const client = sdkClient(router, free.key);
    await expect(client.chat.completions.create({ model: '@preset/big', messages: HI })).rejects.toMatchObject({ status: 403, code: 'plan_upgrade_required', param: 'model' });
    // The same preset on a model the plan has is fine.
    await expect(client.chat.completions.create({ model: 'openai/gpt-4.1@preset/big', messages: HI })).resolves.toMatchObject({ object: 'chat.completion' });
    await expect(client.chat.completions.create({ model: '@preset/nope', messages: HI })).rejects.toMatchObject({ status: 404, code: 'preset_not_found', param: 'model' });
    // Two different presets, or a preset that is not a slug, are the request's mistake; `preset: null` names none.
    await expect(client.chat.completions.create({ model: '@preset/big', messages: HI, preset: 'other' } as any)).rejects.toMatchObject({ status: 400, code: 'invalid_request', param: 'preset' });
    await expect(client.chat.completions.create({ model: 'openai/gpt-4.1', messages: HI, preset: 5 } as any)).rejects.toMatchObject({ status: 400, param: 'preset' });
    await expect(client.chat.completions.create({ model: 'openai/gpt-4.1', messages: HI, preset: null } as any)).resolves.toMatchObject({ object: 'chat.completion' });
    // Another organization's preset is not there for this one.
    await expect(client.chat.completions.create({ model: 'openai/gpt-4.1', messages: HI, preset: 'coder' } as any)).rejects.toMatchObject({ status: 404, code: 'preset_not_found', param: 'preset' });
    const messages = await fetch(`${router.url}/v1/messages`, { method: 'POST', headers: { ...UA, 'x-api-key': free.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: '@preset/nope', max_tokens: 10, messages: HI }) });
    expect(messages.status).toBe(404);
    expect(((await messages.json()) as any).error.type).toBe('not_found_error');
  });

  it('lists the caller’s own presets in GET /v1/models, and no one else’s', async () => {
    const mine = (await sdkClient(router, org.key).models.list()).data.map((model) => model.id);
    expect(mine).toContain('@preset/coder');
    expect(mine).not.toContain('@preset/big');
    const theirs = (await sdkClient(router, other.key).models.list()).data.map((model) => model.id);
    expect(theirs.filter((id) => id.startsWith('@preset/'))).toEqual([]);
    expect(await sdkClient(router, org.key).models.retrieve('@preset/coder')).toMatchObject({ id: '@preset/coder', owned_by: 'preset', name: 'Code review' });
    await expect(sdkClient(router, other.key).models.retrieve('@preset/coder')).rejects.toMatchObject({ status: 404 });
  });

  it('lists in GET /v1/models only the presets the plan lets the caller call', async () => {
    const store = router.server.runtime.store;
    await store.savePreset({ accountId: free.accountId, slug: 'beyond-plan', config: { model: 'openai/gpt-5' } }, 'cli');
    await store.savePreset({ accountId: free.accountId, slug: 'within-plan', config: { model: 'router/frontier:nitro' } }, 'cli');
    await store.savePreset({ accountId: free.accountId, slug: 'no-model', config: { temperature: 0.1 } }, 'cli');
    const client = sdkClient(router, free.key);
    const listed = (await client.models.list()).data.map((model) => model.id).filter((id) => id.startsWith('@preset/'));
    expect(listed).toEqual(['@preset/within-plan']);
    await expect(client.models.retrieve('@preset/beyond-plan')).rejects.toMatchObject({ status: 404 });
    // What is left out is exactly what a request would be refused.
    await expect(client.chat.completions.create({ model: '@preset/beyond-plan', messages: HI })).rejects.toMatchObject({ status: 403, code: 'plan_upgrade_required' });
    await expect(client.chat.completions.create({ model: '@preset/no-model', messages: HI })).rejects.toMatchObject({ status: 400 });
    // The same plan's organization on Pro sees it: the plan decides, not the preset.
    await store.savePreset({ accountId: org.accountId, slug: 'beyond-plan', config: { model: 'openai/gpt-5' } }, 'cli');
    expect((await sdkClient(router, org.key).models.list()).data.map((model) => model.id)).toContain('@preset/beyond-plan');
    await store.deletePreset(org.accountId, 'beyond-plan', 'cli');
  });

  it('PATCH disables and renames, DELETE removes; ordinary keys may not', async () => {
    expect((await call(org.key, 'PATCH', '/v1/presets/coder', { status: 'disabled' })).status).toBe(403);
    const disabled = await call(admin.key, 'PATCH', '/v1/presets/coder', { status: 'disabled', name: 'Old review' });
    expect(disabled.body.data).toMatchObject({ status: 'disabled', name: 'Old review', current_version: 2 });
    await expect(sdkClient(router, org.key).chat.completions.create({ model: '@preset/coder', messages: HI })).rejects.toMatchObject({ status: 404, code: 'preset_not_found' });
    expect((await sdkClient(router, org.key).models.list()).data.map((model) => model.id)).not.toContain('@preset/coder');
    const versioned = await call(admin.key, 'PATCH', '/v1/presets/coder', { status: 'active', config: { model: 'openai/gpt-4.1' } });
    expect(versioned.body.data).toMatchObject({ status: 'active', current_version: 3, designated_version: { config: { model: 'openai/gpt-4.1' } } });
    expect((await call(org.key, 'DELETE', '/v1/presets/coder')).status).toBe(403);
    expect(await call(admin.key, 'DELETE', '/v1/presets/coder')).toEqual({ status: 200, body: { deleted: true } });
    expect((await call(admin.key, 'DELETE', '/v1/presets/coder')).status).toBe(404);
    expect((await call(org.key, 'GET', '/v1/presets')).body.total_count).toBe(0);
  });
});
