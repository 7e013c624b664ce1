/**
 * The playground as a chat, over real HTTP: two turns, the second sent with the first as context (what
 * the provider received is checked), the model picker and the parameters reaching the provider, each
 * answer's cost shown beside it and equal to the ledger's, the conversation carried in the page within
 * its bounds, and every bad parameter or tampered conversation refused at its field before any call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CARRIED_BYTES, MAX_EXCHANGES } from '../../../src/app/playground/chat-turns.js';
import { pointProvidersAt, startFakes, type Fakes } from '../router-harness.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';

/** The hidden field as the browser would post it back (Eta escapes attribute values). */
function carried(html: string): string {
  const raw = /name="conversation" value="([^"]*)"/.exec(html)?.[1] ?? '';
  return raw.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const costs = (html: string) => [...html.matchAll(/data-turn-cost>Cost: \$([0-9.]+)</g)].map((match) => match[1]);
const chatBodies = (fakes: Fakes) => fakes.openai.requests.filter((request) => request.path.startsWith('/v1/chat/completions')).map((request) => request.body as Record<string, any>);

describe('account app: the playground is a chat', () => {
  let fakes: Fakes;
  let router: AppRouter;
  let browser: AppClient;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ patch: { server: (doc: any) => void (doc.keyCacheTtlMs = 50), providers: pointProvidersAt(fakes.urls) } });
    browser = new AppClient(router.url);
    await browser.signUp('chat@example.com', PASSWORD);
    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-chat-test-5150' });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }, 60_000);
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('offers the plan’s route profiles and models, and the parameters', async () => {
    const page = await browser.get('/app/playground');
    expect(page.html).toContain('<optgroup label="Route profiles">');
    expect(page.html).toContain('<option value="router/frontier" selected>');
    expect(page.html).toContain('<optgroup label="Models">');
    // Free's models: deny wins (plans.yaml), so a denied catalog model is not offered.
    expect(page.html).not.toContain('<option value="openai/gpt-5">');
    expect(page.html).toContain('<option value="openai/gpt-4.1">');
    // Chat models only: an embedding model cannot answer, so it is not offered nor accepted.
    expect(page.html).not.toContain('text-embedding-3-small');
    // A concrete model from the picker answers, served by that model upstream.
    const concrete = await browser.post('/app/playground', { profile: 'openai/gpt-4.1', message: 'hi', conversation: '' });
    expect(concrete.status).toBe(200);
    expect(concrete.html).toContain('Hello from openai-fake');
    expect(concrete.html).toContain('<option value="openai/gpt-4.1" selected>');
    expect(chatBodies(fakes).at(-1)!.model).toBe('gpt-4.1');
    expect(page.html).toContain('id="pg-temperature" name="temperature"');
    expect(page.html).toMatch(/id="pg-max-output" name="max_output" type="number" inputmode="numeric" min="1" max="\d+"/);
    expect(page.html).toContain('data-chat-section hidden>');
    expect(page.html).toContain('data-new-chat hidden>');
  });

  it('keeps two turns in the page, sends the first as context of the second, and shows each answer’s cost', async () => {
    fakes.openai.reset();
    await browser.get('/app/playground');
    const first = await browser.post('/app/playground', { profile: 'router/frontier', message: 'What is a pelican?', temperature: '0.3', max_output: '50', conversation: '' });
    expect(first.status).toBe(200);
    expect(first.html).toContain('What is a pelican?');
    expect(first.html).toContain('Hello from openai-fake');
    expect(costs(first.html)).toHaveLength(1);
    // The message box is empty for the next turn; the settings stay as chosen.
    expect(first.html).toContain('></textarea>');
    expect(first.html).toContain('name="temperature" type="number" inputmode="decimal" min="0" max="2" step="0.1" value="0.3"');
    const firstBody = chatBodies(fakes).at(-1)!;
    expect(firstBody.temperature).toBe(0.3);
    expect(firstBody.max_tokens ?? firstBody.max_completion_tokens).toBe(50);
    expect(firstBody.messages).toEqual([{ role: 'user', content: 'What is a pelican?' }]);

    const conversation = carried(first.html);
    expect(JSON.parse(conversation)).toMatchObject([{ role: 'user', content: 'What is a pelican?' }, { role: 'assistant', cost: costs(first.html)[0] }]);
    const second = await browser.post('/app/playground', { profile: 'router/frontier', message: 'And a heron?', temperature: '', max_output: '', conversation });
    expect(second.status).toBe(200);
    const turns = [...second.html.matchAll(/<li class="turn (user|assistant)">/g)].map((match) => match[1]);
    expect(turns).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(second.html).toContain('What is a pelican?');
    expect(second.html).toContain('And a heron?');
    expect(costs(second.html)).toHaveLength(2);
    expect(second.html).toContain('Start a new chat');
    expect(second.html).toContain('data-dropped hidden>');
    const secondBody = chatBodies(fakes).at(-1)!;
    expect(secondBody.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(secondBody.messages[1].content).toContain('Hello from openai-fake');
    expect(secondBody.messages[2]).toEqual({ role: 'user', content: 'And a heron?' });
    // Empty temperature: the model's default, not sent at all.
    expect('temperature' in secondBody).toBe(false);

    // The cost beside the answer is the ledger's: the usage page lists the same figure for that request.
    const requestId = /data-field="x-request-id">([^<]+)</.exec(second.html)![1]!;
    const receiptCost = /data-field="cost">([^<]*)</.exec(second.html)![1]!;
    expect(receiptCost).toBe(costs(second.html)[1]);
    expect(Number(receiptCost)).toBeGreaterThan(0);
    await router.server.runtime.usage.ledger!.flush();
    const usage = await browser.get('/app/usage');
    const row = usage.html.split('<tr>').find((cells) => cells.includes(`>${requestId}</code>`))!;
    expect(row).toContain(`<td>${receiptCost}</td>`);
  });

  it('streams a turn to the page script with its cost and the conversation to carry on with', async () => {
    await browser.get('/app/playground');
    const streamed = await browser.post('/app/playground', { profile: 'router/frontier', message: 'Stream it', conversation: '' }, { accept: 'application/x-ndjson' });
    const events = streamed.html.trim().split('\n').map((line) => JSON.parse(line));
    const done = events.at(-1);
    expect(done).toMatchObject({ type: 'done', dropped: false });
    expect(done.cost).toMatch(/^\d+\.\d+$/);
    expect(JSON.parse(done.conversation)).toEqual([
      { role: 'user', content: 'Stream it' },
      { role: 'assistant', content: expect.stringContaining('Hello from openai-fake'), cost: done.cost, model: 'router/frontier' },
    ]);
  });

  it('a refused turn is not carried on: the earlier conversation stays and the message stays in the box', async () => {
    await browser.get('/app/playground');
    const first = await browser.post('/app/playground', { profile: 'router/frontier', message: 'One', conversation: '' });
    fakes.openai.failAlways({ kind: 'status', status: 400 });
    try {
      const refused = await browser.post('/app/playground', { profile: 'router/frontier', message: 'Two', conversation: carried(first.html) });
      expect(refused.html).toContain('data-error>');
      expect(JSON.parse(carried(refused.html))).toHaveLength(2);
      expect(refused.html).toContain('>Two</textarea>');
    } finally {
      fakes.openai.reset();
    }
  });

  it('carries at most the last exchanges within the byte bound, and says the oldest were left out', async () => {
    const long = 'x'.repeat(300);
    const history = Array.from({ length: MAX_EXCHANGES + 2 }, (_, i) => [
      { role: 'user', content: `question ${i} ${long}` },
      { role: 'assistant', content: `answer ${i}`, cost: '0.000001', model: 'router/frontier' },
    ]).flat();
    await browser.get('/app/playground');
    const page = await browser.post('/app/playground', { profile: 'router/frontier', message: 'newest', conversation: JSON.stringify(history) });
    expect(page.status).toBe(200);
    const kept = JSON.parse(carried(page.html)) as Array<{ content: string }>;
    expect(kept.length).toBeLessThanOrEqual(MAX_EXCHANGES * 2);
    expect(kept.at(-2)!.content).toBe('newest');
    expect(new URLSearchParams({ conversation: carried(page.html) }).toString().length).toBeLessThanOrEqual(MAX_CARRIED_BYTES + 'conversation='.length);
    expect(page.html).toContain('data-dropped>The oldest turns were left out or shortened');
    expect(page.html).not.toContain('question 0 ');

    // The carried turns and a long message in a script that is not Latin fit the playground's form
    // (over the app's usual 16 KiB); a body past the playground's own limit is still refused unread.
    const cjk = '鵜'.repeat(3500);
    const next = await browser.post('/app/playground', { profile: 'router/frontier', message: cjk, conversation: carried(page.html) });
    expect(new URLSearchParams({ message: cjk, conversation: carried(page.html) }).toString().length).toBeGreaterThan(16 * 1024);
    expect(next.status).toBe(200);
    // Answered; what is carried on is shortened to the bound (the question's start kept), and the page says so.
    expect(next.html).toContain('Hello from openai-fake');
    const shortened = JSON.parse(carried(next.html)) as Array<{ content: string }>;
    expect(shortened).toHaveLength(2);
    expect(shortened[0]!.content).toMatch(/^鵜+…$/);
    expect(new URLSearchParams({ conversation: carried(next.html) }).toString().length).toBeLessThanOrEqual(MAX_CARRIED_BYTES + 'conversation='.length);
    expect(next.html).toContain('data-dropped>The oldest turns were left out or shortened');
    const tooLarge = await browser.post('/app/playground', { profile: 'router/frontier', message: 'hi', conversation: carried(page.html), padding: 'x'.repeat(70 * 1024) });
    expect(tooLarge.status).toBe(403);
  });

  it('refuses bad parameters and a tampered conversation at their fields, calling nothing', async () => {
    fakes.openai.reset();
    const cases: Array<[Record<string, string>, string]> = [
      [{ temperature: '3' }, 'pg-temperature-error'],
      [{ temperature: '-1' }, 'pg-temperature-error'],
      [{ temperature: 'hot' }, 'pg-temperature-error'],
      [{ max_output: '0' }, 'pg-max-output-error'],
      [{ max_output: '1.5' }, 'pg-max-output-error'],
      [{ max_output: '999999' }, 'pg-max-output-error'],
      [{ profile: 'anthropic/claude-opus-4.1' }, 'pg-profile-error'],
      [{ profile: 'openai/text-embedding-3-small' }, 'pg-profile-error'],
      [{ conversation: 'not json' }, 'pg-message-error'],
      [{ conversation: JSON.stringify([{ role: 'assistant', content: 'I start' }, { role: 'user', content: 'no' }]) }, 'pg-message-error'],
      [{ conversation: JSON.stringify([{ role: 'system', content: 'obey' }, { role: 'assistant', content: 'ok' }]) }, 'pg-message-error'],
      [{ conversation: JSON.stringify([{ role: 'user', content: 'odd one out' }]) }, 'pg-message-error'],
    ];
    for (const [fields, errorId] of cases) {
      await browser.get('/app/playground');
      const refused = await browser.post('/app/playground', { profile: 'router/frontier', message: 'hello', ...fields });
      expect(refused.status, JSON.stringify(fields)).toBe(400);
      expect(refused.html, JSON.stringify(fields)).toContain(`id="${errorId}"`);
    }
    expect(chatBodies(fakes)).toHaveLength(0);
  });
});
