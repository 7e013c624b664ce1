/**
 * routing/tool-call-signatures.ts with the Gemini adapter's capability and a memory under the test's
 * control: signatures are kept before the answer (or the stream chunk carrying the call) is released,
 * only the router's own unsigned call ids are looked up, and nothing happens for an adapter without the
 * capability or a request without an account.
 */
import { describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../../../src/formats/openai-chat.js';
import type { IssuedSignature, ProviderAdapter } from '../../../src/providers/adapter.js';
import { createGeminiAdapter } from '../../../src/providers/gemini/index.js';
import type { Candidate } from '../../../src/routing/attempt.js';
import { signingFor, type SignatureMemory } from '../../../src/routing/tool-call-signatures.js';

const gemini = createGeminiAdapter();
const ROUTER_ID = 'call_AbCdEfGhIjKlMnOpQrStUvWx';
const candidate = { accountId: 'acct_1' } as Candidate;
const detail = (id: string, data: string) => ({ type: 'reasoning.encrypted' as const, data, id, format: 'google-gemini-v1', index: 0 });

/** A memory whose writes finish only when the test says so, recording what was asked. */
function controlledMemory(kept: Record<string, string> = {}) {
  const log: string[] = [];
  let finishWrite: () => void = () => {};
  const memory: SignatureMemory = {
    remember: (accountId: string, signatures: readonly IssuedSignature[]) => {
      log.push(`remember ${accountId} ${signatures.map((entry) => `${entry.callId}=${entry.signature}`).join(',')}`);
      return new Promise<void>((resolve) => (finishWrite = resolve));
    },
    recall: async (accountId: string, ids: readonly string[]) => {
      log.push(`recall ${accountId} ${ids.join(',')}`);
      return new Map(ids.flatMap((id) => (kept[id] === undefined ? [] : [[id, kept[id]!] as [string, string]])));
    },
  };
  return { memory, log, finishWrite: () => finishWrite() };
}

const chunk = (delta: ChatCompletionChunk['choices'][number]['delta']): ChatCompletionChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] });

describe('tool-call signatures in routing', () => {
  it('puts a kept signature back on the router’s own unsigned call, and looks up nothing else', async () => {
    const { memory, log } = controlledMemory({ [ROUTER_ID]: 'sig-kept' });
    const request: ChatRequest = {
      model: 'm',
      messages: [
        { role: 'user', content: 'Go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: ROUTER_ID, type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'toolu_foreign', type: 'function', function: { name: 'g', arguments: '{}' } },
            { id: 'call_SignedSignedSignedSigned', type: 'function', function: { name: 'h', arguments: '{}' }, extra_content: { google: { thought_signature: 'own' } } },
          ],
        },
      ],
    };
    const restored = await signingFor(memory, gemini, candidate)!.restore(request);
    expect(log).toEqual([`recall acct_1 ${ROUTER_ID}`]);
    expect(restored.messages[1]!.reasoning_details).toEqual([{ type: 'reasoning.encrypted', data: 'sig-kept', id: ROUTER_ID, format: 'google-gemini-v1' }]);
    expect(request.messages[1]!.reasoning_details).toBeUndefined();
  });

  it('keeps an answer’s signatures before the answer is released', async () => {
    const { memory, log, finishWrite } = controlledMemory();
    const completion = {
      choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, reasoning_details: [detail(ROUTER_ID, 'sig-1')] }, finish_reason: 'tool_calls', logprobs: null }],
    } as unknown as ChatCompletion;
    let released = false;
    const keeping = signingFor(memory, gemini, candidate)!.keep(completion).then(() => (released = true));
    await Promise.resolve();
    expect(log).toEqual([`remember acct_1 ${ROUTER_ID}=sig-1`]);
    expect(released).toBe(false);
    finishWrite();
    await keeping;
    expect(released).toBe(true);
  });

  it('a stream chunk carrying a signature waits for it to be kept; others pass at once', async () => {
    const { memory, log, finishWrite } = controlledMemory();
    const chunks = [chunk({ content: 'thinking' }), chunk({ reasoning_details: [detail(ROUTER_ID, 'sig-2')] }), chunk({})];
    const source = (async function* () {
      yield* chunks.slice(1);
    })();
    const stream = await signingFor(memory, gemini, candidate)!.keepStreamed({ head: [chunks[0]!], tail: source });
    expect(stream.head).toEqual([chunks[0]]);
    let second: unknown;
    const pending = stream.tail.next().then((next) => (second = next.value));
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual([`remember acct_1 ${ROUTER_ID}=sig-2`]);
    expect(second).toBeUndefined();
    finishWrite();
    await pending;
    expect(second).toBe(chunks[1]);
    expect((await stream.tail.next()).value).toBe(chunks[2]);
  });

  it('does nothing for an adapter that signs nothing, without a memory, or without an account', () => {
    const { memory } = controlledMemory();
    const plain = { ...gemini, toolCallSignatures: undefined } as ProviderAdapter;
    expect(signingFor(memory, plain, candidate)).toBeUndefined();
    expect(signingFor(undefined, gemini, candidate)).toBeUndefined();
    expect(signingFor(memory, gemini, {} as Candidate)).toBeUndefined();
  });
});
