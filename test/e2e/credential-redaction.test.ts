/**
 * An upstream that quotes the credential the router sent (in a 4xx body passed to the client, or in an
 * error inside a stream) never gets it back to the client or into a log: the exact value used for the
 * attempt is redacted, raw and URL-encoded, for the account's own keys and the operator's managed ones.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  frontierOrder,
  json,
  pointProvidersAt,
  postV1,
  readSse,
  startFakes,
  startTestRouter,
  type Fakes,
  type ProviderId,
  type TestRouter,
} from './router-harness.js';

/** Keys that no pattern would catch (the OpenAI one has URL-special characters), so only exact redaction can. */
const KEYS: Record<ProviderId, string> = {
  openai: 'proj/Exact+Redaction=OpenAI-0001',
  anthropic: 'AnthropicExactRedaction-0002',
  gemini: 'AIzaSyExactRedactionGemini00000000000003',
};
const MANAGED_KEY = 'operator/Managed+Key=0004';
const HELLO = { model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }] };

/** The forms a credential may be quoted in. */
const forms = (key: string) => [key, encodeURIComponent(key)];

describe('the credential used for an attempt never comes back', () => {
  let fakes: Fakes;
  let router: TestRouter;
  const logText = () => (router.server.runtime.logger as unknown as { lines: string[] }).lines.join('\n');
  const expectRedacted = (text: string, key: string) => {
    for (const form of forms(key)) expect(text).not.toContain(form);
  };

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      env: { OPENAI_API_KEY: MANAGED_KEY },
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
        plans: (doc) => void (doc.plans.find((plan: { id: string }) => plan.id === 'max').managedSpendCapUsd = 50),
      },
    });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  describe.each(['openai', 'anthropic', 'gemini'] as const)('a BYOK %s key', (provider) => {
    let key: string;
    beforeAll(async () => {
      ({ key } = await router.createAccount('pro', { providerKeys: { [provider]: KEYS[provider] } }));
    });

    it('quoted in an upstream 400 passed through to the client', async () => {
      fakes[provider].failNext({ kind: 'status', status: 400, echoCredential: true });
      const response = await postV1(router, key, '/chat/completions', HELLO);
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(JSON.parse(text).error.message).toContain('[redacted]');
      expectRedacted(text, KEYS[provider]);
      expectRedacted(logText(), KEYS[provider]);
    });

    it('quoted in an error inside a committed stream', async () => {
      fakes[provider].failNext({ kind: 'mid-stream-error', afterEvents: provider === 'anthropic' ? 5 : provider === 'gemini' ? 1 : 3, echoCredential: true });
      const response = await postV1(router, key, '/chat/completions', { ...HELLO, stream: true });
      const events = await readSse(response);
      expect(events.some((event) => event.data.includes('"error"'))).toBe(true);
      expectRedacted(JSON.stringify(events), KEYS[provider]);
      expectRedacted(logText(), KEYS[provider]);
    });
  });

  it('quoted in a native Responses stream failure (passed through as events)', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { openai: KEYS.openai } });
    fakes.openai.failNext({ kind: 'mid-stream-error', afterEvents: 6, echoCredential: true });
    const response = await postV1(router, key, '/responses', { model: 'router/frontier', input: 'Say hello', stream: true });
    const events = await readSse(response);
    expect(events.at(-1)?.event).toBe('response.failed');
    expectRedacted(JSON.stringify(events), KEYS.openai);
  });

  it("an operator-managed key quoted in an upstream 400", async () => {
    const { key } = await router.createAccount('max');
    fakes.openai.failNext({ kind: 'status', status: 400, echoCredential: true });
    const response = await postV1(router, key, '/chat/completions', HELLO);
    expect(response.status).toBe(400);
    expect(fakes.openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${MANAGED_KEY}`);
    const body = await json(response);
    expectRedacted(JSON.stringify(body), MANAGED_KEY);
    expectRedacted(logText(), MANAGED_KEY);
  });
});
