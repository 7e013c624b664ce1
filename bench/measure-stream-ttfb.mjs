/**
 * Time to first byte of streamed chat completions: from sending the request to the first byte of the
 * response body (the first SSE event), over keep-alive connections. One request at a time, targets take
 * turns request by request; under load (`measureStreamTtfbUnderLoad`), each target in turn gets a round
 * of `concurrency` clients sending one stream after another. Either way any drift of the machine hits
 * all targets alike. Every stream is read to its end and must end with `data: [DONE]`.
 */
import { Agent, request } from 'node:http';
import { summarizeLatencies } from './summarize-latencies.mjs';

const DONE = 'data: [DONE]\n\n';

/**
 * @param {Array<{ label: string, url: string, headers: Record<string, string>, body: string }>} targets
 * @param {{ requests: number, warmup: number }} counts
 * @returns {Promise<Record<string, { count: number, p50: number, p99: number }>>}
 */
export async function measureStreamTtfb(targets, { requests, warmup }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples = Object.fromEntries(targets.map((target) => [target.label, []]));
  try {
    for (let i = 0; i < warmup + requests; i++) {
      for (const target of targets) {
        const ttfbMs = await timeOneStream(target, agent);
        if (i >= warmup) samples[target.label].push(ttfbMs);
      }
    }
  } finally {
    agent.destroy();
  }
  return Object.fromEntries(Object.entries(samples).map(([label, values]) => [label, summarizeLatencies(values)]));
}

/**
 * @param {Array<{ label: string, url: string, headers: Record<string, string>, body: string }>} targets
 * @param {{ concurrency: number, rounds: number, perClient: number }} load
 *   each round: `concurrency` clients per target, `perClient` streams each; the first round warms up
 * @returns {Promise<Record<string, { count: number, p50: number, p99: number }>>}
 */
export async function measureStreamTtfbUnderLoad(targets, { concurrency, rounds, perClient }) {
  const agents = new Map(targets.map((target) => [target.label, new Agent({ keepAlive: true, maxSockets: concurrency })]));
  const samples = Object.fromEntries(targets.map((target) => [target.label, []]));
  try {
    for (let round = 0; round <= rounds; round++) {
      for (const target of targets) {
        const agent = agents.get(target.label);
        const client = async () => {
          for (let i = 0; i < perClient; i++) {
            const ttfbMs = await timeOneStream(target, agent);
            if (round > 0) samples[target.label].push(ttfbMs);
          }
        };
        await Promise.all(Array.from({ length: concurrency }, client));
      }
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return Object.fromEntries(Object.entries(samples).map(([label, values]) => [label, summarizeLatencies(values)]));
}

function timeOneStream({ label, url, headers, body }, agent) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const started = process.hrtime.bigint();
    let firstByteAt;
    let tail = '';
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': payload.length } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`${label}: stream request answered ${res.statusCode}`));
      }
      res.setEncoding('utf8');
      res.on('data', (text) => {
        firstByteAt ??= process.hrtime.bigint();
        tail = (tail + text).slice(-DONE.length);
      });
      res.on('end', () => {
        if (tail !== DONE) return reject(new Error(`${label}: stream did not end with data: [DONE]`));
        resolve(Number(firstByteAt - started) / 1e6);
      });
      res.on('error', (error) => reject(new Error(`${label}: stream broke off (${error.message})`)));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.on('error', (error) => reject(new Error(`${label}: stream request failed (${error.message})`)));
    req.end(payload);
  });
}
