/**
 * Body fields that SDK wrappers and gateways read as "send this elsewhere" or "use these credentials"
 * (`api_base`, `base_url`, `extra_headers`, `api_key`, …) never reach an upstream, on any provider or
 * endpoint: where a request goes and with which key is the router's decision alone.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, pointProvidersAt, postV1, startFakes, startTestRouter, type Fakes, type ProviderId, type TestRouter } from '../e2e/router-harness.js';

const ELSEWHERE = 'http://attacker.invalid/v1';
const REDIRECTING = {
  api_base: ELSEWHERE,
  base_url: ELSEWHERE,
  api_key: 'sk-someone-elses-key-0000',
  extra_headers: { authorization: 'Bearer sk-someone-elses-key-0000', 'x-forwarded-host': 'attacker.invalid' },
  headers: { 'openai-organization': 'org-someone-else' },
  organization: 'org-someone-else',
  api_version: '2024-02-01',
  custom_llm_provider: 'azure',
};

for (const provider of ['openai', 'anthropic', 'gemini'] as const satisfies readonly ProviderId[]) {
  describe(`redirecting body fields on a route that goes to ${provider}`, () => {
    let fakes: Fakes;
    let router: TestRouter;
    let key: string;

    beforeAll(async () => {
      fakes = await startFakes();
      router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder([provider]) } });
      key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
    });
    afterEach(() => fakes.reset());
    afterAll(async () => {
      await router.close();
      await fakes.close();
    });

    const endpoints = [
      ['/chat/completions', { messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 }],
      ['/responses', { input: 'hi', temperature: 0.5 }],
    ] as const;
    for (const [path, body] of endpoints) {
      for (const stream of [false, true]) {
        it(`${path} (stream: ${stream}): served, with none of them in the upstream request, and the client's other fields kept`, async () => {
          const response = await postV1(router, key, path, { model: 'router/frontier', ...body, stream, ...REDIRECTING });
          expect(response.status).toBe(200);
          await response.text();
          const [sent] = fakes[provider].requests;
          expect(sent).toBeDefined();
          const text = JSON.stringify(sent!.body);
          for (const field of Object.keys(REDIRECTING)) expect(text).not.toContain(`"${field}"`);
          expect(text).not.toMatch(/attacker\.invalid|someone-else/);
          expect(String(sent!.headers.authorization ?? sent!.headers['x-api-key'] ?? sent!.headers['x-goog-api-key'])).not.toContain('someone');
          if (provider === 'openai') expect(sent!.body).toMatchObject({ temperature: 0.5 });
        });
      }
    }
  });
}
