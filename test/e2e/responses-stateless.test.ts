/**
 * The router keeps no response store, and says so the same way on every route: a request that needs
 * stored state gets 400 invalid_request before admission (nothing reaches an upstream, nothing is
 * counted), and every Response object says `store: false`. Checked with the official SDK on the native
 * Responses route (OpenAI) and on a route synthesized from chat (Anthropic).
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const ROUTES = [
  { route: 'native', provider: 'openai' },
  { route: 'synthesized', provider: 'anthropic' },
] as const;

const NEEDS_STORED_STATE: ReadonlyArray<[param: string, fields: Record<string, unknown>]> = [
  ['previous_response_id', { previous_response_id: 'resp_0123456789abcdef' }],
  ['conversation', { conversation: 'conv_0123456789abcdef' }],
  ['prompt', { prompt: { id: 'pmpt_0123456789abcdef' } }],
  ['background', { background: true }],
  ['input[1]', { input: [{ role: 'user', content: 'Go on' }, { type: 'item_reference', id: 'msg_0123456789abcdef' }] }],
];

/** `store` is in every Response the API returns, though the SDK's Response type leaves it out. */
function storeOf(response: object): unknown {
  return (response as { store?: unknown }).store;
}

describe.each(ROUTES)('the $route Responses route ($provider) keeps no state', ({ provider }) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder([provider]) } });
    client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key);
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  async function quotaUsed(): Promise<number> {
    const { response } = await client.models.list().withResponse();
    return Number(response.headers.get('x-quota-used'));
  }

  it.each(NEEDS_STORED_STATE)('refuses %s with 400 invalid_request before admission: no upstream call, nothing counted', async (param, fields) => {
    const before = await quotaUsed();
    const error = await client.responses.create({ model: 'router/frontier', input: 'Hi', ...fields } as never).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const apiError = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect([apiError.status, apiError.type, apiError.code, apiError.param]).toStrictEqual([400, 'invalid_request_error', 'invalid_request', param]);
    expect(apiError.headers?.get('x-quota-used')).toBe(String(before));
    expect(fakes[provider].requests).toHaveLength(0);
    expect(await quotaUsed()).toBe(before);
  });

  it('answers store: true with a Response that says store: false', async () => {
    const response = await client.responses.create({ model: 'router/frontier', input: 'Hi', store: true });
    expect(response.status).toBe('completed');
    expect(storeOf(response)).toBe(false);
  });

  it('says store: false in the streamed Response too', async () => {
    const final = await client.responses.stream({ model: 'router/frontier', input: 'Hi', store: true }).finalResponse();
    expect(storeOf(final)).toBe(false);
  });
});

describe('the native Responses route', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai']) } });
    client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key);
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it.each([true, undefined])('asks the host not to store the response when the client sent store: %s (the host stores by default)', async (store) => {
    fakes.reset();
    const response = await client.responses.create({ model: 'router/frontier', input: 'Hi', ...(store === undefined ? {} : { store }) });
    expect(storeOf(response)).toBe(false);
    expect((fakes.openai.requests[0]?.body as { store?: unknown }).store).toBe(false);
  });
});
