/**
 * `unknown_model` through HTTP with the official openai SDK: the message a newcomer reads names the
 * concrete model they meant, only if their plan allows it, and the `suggestions` field holds the same.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkClient, startTestRouter, type TestRouter } from './router-harness.js';

async function refusal(client: OpenAI, model: string): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error(`${model} was served`);
}

describe('unknown_model suggests the allowed models that resemble the name', () => {
  let router: TestRouter;
  let pro: OpenAI;
  let free: OpenAI;
  let proAccount: string;
  let proKey: string;

  beforeAll(async () => {
    router = await startTestRouter();
    const account = await router.createAccount('pro');
    proAccount = account.accountId;
    proKey = account.key;
    pro = sdkClient(router, account.key);
    free = sdkClient(router, (await router.createAccount('free')).key);
  });
  afterAll(async () => {
    await router?.close();
  });

  it('names openai/gpt-5 for gpt5 on Pro, in the message the SDK shows and in `suggestions`', async () => {
    const error = await refusal(pro, 'gpt5');
    expect(error.status).toBe(404);
    expect(error.code).toBe('unknown_model');
    expect(error.message).toContain('Did you mean openai/gpt-5');
    const body = error.error as { suggestions: string[]; profiles: string[] };
    expect(body.suggestions[0]).toBe('openai/gpt-5');
    expect(body.suggestions.length).toBeLessThanOrEqual(3);
    expect(body.profiles).toEqual(['router/frontier', 'router/fusion']);
  });

  it('names the Sonnet id for claude-sonnet, and a profile for its typo', async () => {
    expect((await refusal(pro, 'claude-sonnet')).message).toContain('Did you mean anthropic/claude-sonnet-4.5');
    expect((await refusal(pro, 'router/fronteir')).message).toContain('Did you mean router/frontier');
  });

  it('never suggests a model the plan does not allow: Free is not offered openai/gpt-5', async () => {
    const error = await refusal(free, 'gpt5');
    expect(error.message).not.toContain('openai/gpt-5');
    expect((error.error as { suggestions: string[] }).suggestions).not.toContain('openai/gpt-5');
    expect((error.error as { suggestions: string[] }).suggestions).not.toContain('router/fusion');
  });

  it('suggests the organization’s own preset for its slug typed without @preset/, and never another organization’s', async () => {
    await router.server.runtime.store.savePreset({ accountId: proAccount, slug: 'code-review', config: { model: 'router/frontier' } }, 'cli');
    const error = await refusal(pro, 'code-review');
    expect(error.message).toContain('Did you mean @preset/code-review');
    expect((await refusal(free, 'code-review')).message).not.toContain('@preset/code-review');
  });

  it('says the same on GET /v1/models/{id}', async () => {
    const response = await fetch(`${router.baseURL}/models/gpt5`, { headers: { authorization: `Bearer ${pro.apiKey}`, 'user-agent': 'router-tests/1.0' } });
    expect(response.status).toBe(404);
    const { error } = (await response.json()) as { error: { message: string; suggestions: string[] } };
    expect(error.suggestions).toContain('openai/gpt-5');
    expect(error.message).toContain('Did you mean openai/gpt-5');
  });

  it('says the same on /v1/messages/count_tokens, the organization’s presets included', async () => {
    await router.server.runtime.store.savePreset({ accountId: proAccount, slug: 'count-review', config: { model: 'router/frontier' } }, 'cli');
    for (const [model, meant] of [['gpt5', 'openai/gpt-5'], ['count-review', '@preset/count-review']] as const) {
      const response = await fetch(`${router.url}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': proKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(404);
      const { error } = (await response.json()) as { error: { code: string; message: string; suggestions: string[] } };
      expect(error.code).toBe('unknown_model');
      expect(error.suggestions).toContain(meant);
      expect(error.message).toContain(`Did you mean ${meant}`);
    }
  });
});
