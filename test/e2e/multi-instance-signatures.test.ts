/**
 * Gemini thought signatures across two `router serve` processes sharing PostgreSQL and Redis, for a
 * client that rebuilds its messages (the official openai SDK, keeping only `id`, `type` and `function`
 * of each tool call): turn 1 on one instance, turn 2 on the other, and the exact recorded Gemini 3
 * signature reaches the upstream, JSON and streamed; another account presenting the same ids on either
 * instance gets only the documented placeholder.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { clusterSkipReason, startCluster, type Cluster } from './multi-instance-cluster.js';
import { frontierOrder, PROVIDER_KEYS } from './router-harness.js';
import { ASK, WEATHER_TOOL, rebuiltTurn, sentModelParts, signaturesOf, streamRebuilt, toolResults } from './rebuilding-client.js';

if (clusterSkipReason) console.warn(clusterSkipReason);

const PARALLEL = loadRecorded('gemini/gemini-3-parallel-function-calls');
const STREAMED = loadRecorded('gemini/gemini-3-streamed-function-calls');
const model = 'router/frontier';

describe.skipIf(clusterSkipReason !== undefined)('thought signatures on two instances sharing PostgreSQL and Redis', () => {
  let cluster: Cluster;
  const clients: Array<[OpenAI, OpenAI]> = [];

  async function accountClients(): Promise<[OpenAI, OpenAI]> {
    const { accountId, key } = await cluster.createAccount('pro');
    await cluster.cli('provider-keys', 'set', '--account', accountId, '--provider', 'gemini', '--key', PROVIDER_KEYS.gemini);
    const [a, b] = cluster.routers;
    return [new OpenAI({ apiKey: key, baseURL: a.baseURL, maxRetries: 0 }), new OpenAI({ apiKey: key, baseURL: b.baseURL, maxRetries: 0 })];
  }

  beforeAll(async () => {
    cluster = await startCluster({ plans: { pro: { monthlyRequests: 1000, requestsPerMinute: 500 } }, routes: frontierOrder(['gemini']) });
    clients.push(await accountClients(), await accountClients());
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });
  beforeEach(() => cluster.fakes.gemini.reset());

  const sentSignatures = () => sentModelParts(cluster.fakes.gemini.requests.at(-1)!.body).map((part) => part.thoughtSignature);

  it('JSON: parallel calls answered on one instance, continued on the other with the exact signature', async () => {
    const [onA, onB] = clients[0]!;
    cluster.fakes.gemini.setReply({ recorded: PARALLEL });
    const first = await onA.chat.completions.create({ model, messages: [ASK], tools: [WEATHER_TOOL] });
    const message = first.choices[0]!.message;
    await onB.chat.completions.create({ model, messages: [ASK, rebuiltTurn(message), ...toolResults(message.tool_calls!)], tools: [WEATHER_TOOL] });
    expect(sentSignatures()).toEqual([signaturesOf(PARALLEL)[0], undefined]);

    // Another account presenting the same ids, on either instance: the placeholder only.
    for (const other of clients[1]!) {
      await other.chat.completions.create({ model, messages: [ASK, rebuiltTurn(message), ...toolResults(message.tool_calls!)], tools: [WEATHER_TOOL] });
      expect(sentSignatures()).toEqual(['skip_thought_signature_validator', undefined]);
    }
  });

  it('stream: parallel calls streamed by one instance, continued on the other with the exact signature', async () => {
    const [onA, onB] = clients[0]!;
    cluster.fakes.gemini.setReply({ recorded: STREAMED });
    const { message, calls } = await streamRebuilt(onB, { model, messages: [ASK], tools: [WEATHER_TOOL] });
    await onA.chat.completions.create({ model, messages: [ASK, message, ...toolResults(calls)], tools: [WEATHER_TOOL], stream: true }).then(async (stream) => {
      for await (const _chunk of stream);
    });
    expect(sentSignatures()).toEqual([signaturesOf(STREAMED)[0], undefined]);
  });
});
