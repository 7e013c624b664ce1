/**
 * The plan's cap on an account's requests in flight, through real HTTP against one router: exactly the
 * cap is served at once, the rest get 429 concurrency_limit_exceeded with Retry-After and cost neither a
 * monthly unit nor a place in the per-minute window, and the slot comes back on every way a request
 * can end (JSON, stream, upstream failure, a refusal after the slot was taken, the client leaving).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  burst,
  frontierOrder,
  json,
  manualClock,
  planLimits,
  pointProvidersAt,
  postChat,
  PROVIDER_KEYS,
  startFakes,
  startTestRouter,
  tally,
  waitFor,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const CAP = 3;
const CONCURRENT = 20;

describe('requests in flight per account (one router, SQLite)', () => {
  let fakes: Fakes;
  let router: TestRouter;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      clock,
      patch: {
        plans: planLimits({ pro: { monthlyRequests: 1_000_000, requestsPerMinute: 1000, maxConcurrentRequests: CAP }, free: { requestsPerMinute: 2, maxConcurrentRequests: 1 } }),
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai']),
      },
    });
  });
  beforeEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  const newAccount = (plan = 'pro') => router.createAccount(plan, { providerKeys: { openai: PROVIDER_KEYS.openai } });

  /**
   * A burst whose served requests are held upstream until the router has answered the rest: "at once"
   * without racing a timer (with a fixed 400 ms, a loaded machine let some requests arrive after the
   * first ones had finished, and served them too). Released after 10 s at most, so a failure still ends.
   */
  async function heldBurst(key: string) {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const releaseAnyway = setTimeout(release, 10_000);
    fakes.openai.setReply({ heldUntil: held });
    let refused = 0;
    const outcomes = await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        const [outcome] = await burst([router.baseURL], key, 1);
        if (outcome!.status !== 200 && ++refused === CONCURRENT - CAP) release();
        return outcome!;
      }),
    );
    clearTimeout(releaseAnyway);
    return outcomes;
  }

  it(`serves exactly ${CAP} of ${CONCURRENT} slow requests sent at once; the rest are refused, refunded and not counted per minute`, async () => {
    const { key } = await newAccount();
    const outcomes = await heldBurst(key);
    expect(tally(outcomes)).toEqual({ '200': CAP, '429 concurrency_limit_exceeded': CONCURRENT - CAP });
    expect(fakes.openai.requests).toHaveLength(CAP);
    expect(new Set(outcomes.filter((outcome) => outcome.status === 429).map((outcome) => outcome.retryAfter))).toEqual(new Set(['1']));
    // Only the served requests took a monthly unit and a place in the per-minute window.
    const models = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${key}`, 'user-agent': 'router-tests/1.0' } });
    expect(models.headers.get('x-quota-used')).toBe(String(CAP));
    expect(models.headers.get('x-ratelimit-remaining')).toBe(String(1000 - CAP - 1));
    // Every slot came back with its answer: the next burst is served the same way.
    expect(tally(await heldBurst(key))).toEqual({ '200': CAP, '429 concurrency_limit_exceeded': CONCURRENT - CAP });
  });

  it('refuses in the contract shape the SDK reads as a rate limit, and another account of the same plan is unaffected', async () => {
    fakes.openai.setReply({ latencyMs: 400 });
    const noisy = await newAccount();
    const quiet = await newAccount();
    const held = Array.from({ length: CAP }, () => postChat(router.baseURL, noisy.key).then((response) => response.status));
    await waitFor(() => fakes.openai.requests.length === CAP);
    const client = new OpenAI({ apiKey: noisy.key, baseURL: router.baseURL, maxRetries: 0 });
    const refused = await client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('concurrency_limit_exceeded');
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('1');
    const other = await postChat(router.baseURL, quiet.key);
    expect(other.status).toBe(200);
    expect(await Promise.all(held)).toEqual([200, 200, 200]);
  });

  it('gives the slot back on every ending: JSON, stream, upstream failure, refusal after the slot, client gone mid-stream', async () => {
    const { key } = await router.createAccount('free', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    // Free here: one request at a time, two per minute; each step below must find the slot free again.
    const outcome = async (extra = {}) => {
      const response = await postChat(router.baseURL, key, extra);
      return response.status === 200 ? (await response.text(), 200) : (await json(response)).error.code;
    };
    expect(await outcome()).toBe(200);
    fakes.openai.failNext({ kind: 'status', status: 503 });
    expect(await outcome()).toBe('all_upstreams_failed');
    // The per-minute window (2) is full now: refused after the slot was taken, and the slot still comes back.
    expect(await outcome()).toBe('rate_limit_exceeded');
    expect(await outcome()).toBe('rate_limit_exceeded');
    clock.advance(61_000);
    expect(await outcome({ stream: true })).toBe(200);

    // The client leaves a stream half-way: its slot comes back once the router has stopped relaying it.
    fakes.openai.setReply({ eventDelayMs: 300 });
    const leaving = new AbortController();
    const stream = await postChat(router.baseURL, key, { stream: true }, leaving.signal);
    const reader = stream.body!.getReader();
    await reader.read();
    expect(await outcome()).toBe('concurrency_limit_exceeded');
    leaving.abort();
    await reader.cancel().catch(() => undefined);
    await waitFor(() => fakes.openai.abortedRequests === 1);
    fakes.openai.setReply({});
    clock.advance(61_000);
    // The router notices the close and unwinds within moments; a slot that never came back fails here.
    let afterLeaving = await outcome();
    for (const deadline = Date.now() + 2000; afterLeaving === 'concurrency_limit_exceeded' && Date.now() < deadline; afterLeaving = await outcome()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(afterLeaving).toBe(200);
  }, 20_000);
});
