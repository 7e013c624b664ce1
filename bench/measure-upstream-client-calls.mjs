/**
 * The client side of one upstream call, alone: for each way the router can make it, 16 concurrent
 * loops send the router's real upstream request (same URL, headers and JSON body) to the fake upstream
 * with a fresh AbortSignal per call (as the router passes one), and read the body whole (non-stream)
 * or chunk by chunk as an AsyncIterable (stream: true). CPU is this process's user+system time per
 * completed call, so nothing but the client is counted.
 *   router client (as built)  — dist/upstream/upstream-client.js, whatever src/ holds now
 *   ofetch → fetch            — the earlier client (create-fetch-upstream-client.mjs)
 *   fetch                     — Node's fetch with the same undici Agent, no ofetch
 *   undici.request            — undici's request API with the same Agent, nothing on top
 *   node:http                 — http.request with a keep-alive Agent (the bare proxy's floor)
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request as undiciRequest } from 'undici';
import { createFetchUpstreamClient } from './create-fetch-upstream-client.mjs';
import { summarizeLatencies } from './summarize-latencies.mjs';

const distDir = join(dirname(dirname(fileURLToPath(import.meta.url))), 'dist');
const WARMUP_S = 2;

const provider = { id: 'openai', timeouts: { connectMs: 5000, firstByteMs: 60000, idleMs: 120000 } };
// The pool options of src/upstream/upstream-client.ts, so only the API on top differs.
const newPool = () => new Agent({ connect: { timeout: 5000 }, headersTimeout: 60000, bodyTimeout: 120000, keepAliveTimeout: 30_000, connections: 256 });

/** Each variant: call(request, signal, stream) → resolves once the whole body was read. */
async function variants() {
  const { createUpstreamClient, UpstreamTransportError } = await import(join(distDir, 'upstream/upstream-client.js'));
  const viaClient = (name, client) => ({
    name,
    async call(request, signal, stream) {
      const response = await client.send(provider, request, signal);
      if (!stream) return void (await response.text());
      for await (const chunk of response.body) void chunk;
    },
    close: () => client.close(),
  });
  const fetchPool = newPool();
  const undiciPool = newPool();
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  return [
    viaClient('router client (as built)', createUpstreamClient({ connectionsPerProvider: 256 })),
    viaClient('ofetch → fetch (earlier client)', createFetchUpstreamClient(UpstreamTransportError)),
    {
      name: 'fetch (same Agent, no ofetch)',
      async call({ url, headers, body }, signal, stream) {
        const response = await fetch(url, { method: 'POST', headers, body, signal, dispatcher: fetchPool });
        if (!stream) return void (await response.text());
        for await (const chunk of response.body) void chunk;
      },
      close: () => fetchPool.close(),
    },
    {
      name: 'undici.request (same Agent)',
      async call({ url, headers, body }, signal, stream) {
        const response = await undiciRequest(url, { method: 'POST', headers, body, signal, dispatcher: undiciPool });
        if (!stream) return void (await response.body.text());
        for await (const chunk of response.body) void chunk;
      },
      close: () => undiciPool.close(),
    },
    {
      name: 'node:http (keep-alive Agent)',
      call: ({ url, headers, body }, signal, _stream) =>
        new Promise((resolve, reject) => {
          const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent: httpAgent, signal }, (res) => {
            res.on('data', () => undefined).on('end', resolve).on('error', reject);
          });
          req.on('error', reject);
          req.end(body);
        }),
      close: async () => httpAgent.destroy(),
    },
  ];
}

/** The router's upstream request for a chat completion (see src/providers/openai/openai-request.ts). */
function upstreamRequest(origin, stream) {
  const body = {
    model: 'gpt-4.1',
    messages: [
      { role: 'system', content: 'You are a concise assistant. Answer in one short paragraph.' },
      { role: 'user', content: 'Explain in two sentences why a gateway in front of an LLM API should add as little latency as possible.' },
    ],
    temperature: 0.2,
    max_completion_tokens: 128,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
  return {
    url: `${origin}/v1/chat/completions`,
    headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json', authorization: 'Bearer sk-bench-compare-0000' },
    body: JSON.stringify(body),
  };
}

async function drive(variant, request, stream, seconds, connections) {
  const latencies = [];
  const deadline = performance.now() + seconds * 1000;
  const cpuBefore = process.cpuUsage();
  const loop = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      await variant.call(request, new AbortController().signal, stream);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const cpu = process.cpuUsage(cpuBefore);
  return { calls: latencies.length, rps: latencies.length / seconds, cpuMsPerCall: (cpu.user + cpu.system) / 1000 / latencies.length, ...summarizeLatencies(latencies) };
}

/**
 * @param {string} origin  the fake upstream
 * @returns {Promise<Array<{ variant: string, mode: string, calls: number, rps: number, cpuMsPerCall: number, p50: number, p99: number }>>}
 */
export async function measureUpstreamClientCalls(origin, { durationS, connections, log = () => undefined }) {
  const rows = [];
  const clients = await variants();
  try {
    for (const stream of [false, true]) {
      const request = upstreamRequest(origin, stream);
      for (const variant of clients) {
        await drive(variant, request, stream, WARMUP_S, connections);
        const result = await drive(variant, request, stream, durationS, connections);
        rows.push({ variant: variant.name, mode: stream ? 'stream' : 'non-stream', ...result });
        log(`${variant.name.padEnd(32)} ${stream ? 'stream    ' : 'non-stream'} ${result.rps.toFixed(0)} calls/s  CPU ${result.cpuMsPerCall.toFixed(3)} ms/call`);
      }
    }
  } finally {
    await Promise.all(clients.map((variant) => variant.close()));
  }
  return rows;
}
