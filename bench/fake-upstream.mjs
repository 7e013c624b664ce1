/**
 * A small, fast fake OpenAI host for the benchmark, run as its own process so its CPU is not the
 * router's: POST /v1/chat/completions answers after a fixed latency with a real chat.completion, or
 * with real SSE framing (role chunk, one chunk per word, finish chunk, optional usage chunk, then
 * `data: [DONE]`). Replies are encoded once per (model, stream, usage) and replayed, so the fake costs
 * as little CPU as possible. Prints `{"port":N}` on stdout when listening; exits when stdin closes,
 * so it never outlives the benchmark.
 *
 * Env: BENCH_LATENCY_MS (default 20).
 */
import { createServer } from 'node:http';

const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const CREATED = 1_700_000_000;
const TEXT = 'Hello from the benchmark upstream: a short answer of about twenty tokens, streamed one word at a time.';
const USAGE = {
  prompt_tokens: 24, completion_tokens: 20, total_tokens: 44,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};
const DONE = Buffer.from('data: [DONE]\n\n');
const encoded = new Map();

/** What `bench-judge` (router/fusion's judge in the bench) answers: an analysis valid against schemas/fusion-analysis.schema.json. */
const JUDGE_TEXT = JSON.stringify({ consensus: ['a short answer'], contradictions: [], partialCoverage: [], uniqueInsights: [], blindSpots: [] });

function completion(model) {
  const content = model === 'bench-judge' ? JUDGE_TEXT : TEXT;
  return {
    id: 'chatcmpl-bench0001', object: 'chat.completion', created: CREATED, model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage: USAGE, service_tier: 'default', system_fingerprint: 'fp_bench',
  };
}

/** OpenAI's chunk sequence; each event framed as `data: <json>\n\n`. */
function chunkEvents(model, includeUsage) {
  const base = { id: 'chatcmpl-bench0001', object: 'chat.completion.chunk', created: CREATED, model, service_tier: 'default', system_fingerprint: 'fp_bench' };
  const usageField = includeUsage ? { usage: null } : {};
  const chunk = (delta, finishReason = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...usageField });
  const chunks = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of TEXT.match(/\s*\S+/g)) chunks.push(chunk({ content: piece }));
  chunks.push(chunk({}, 'stop'));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: USAGE });
  return Buffer.concat([...chunks.map((json) => Buffer.from(`data: ${JSON.stringify(json)}\n\n`)), DONE]);
}

function answerFor(model, stream, includeUsage) {
  const key = `${model}|${stream}|${includeUsage}`;
  let answer = encoded.get(key);
  if (answer === undefined) {
    answer = stream ? chunkEvents(model, includeUsage) : Buffer.from(JSON.stringify(completion(model)));
    encoded.set(key, answer);
  }
  return answer;
}

function sendError(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } }));
}

function handle(req, res, text) {
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return sendError(res, 404, `Invalid URL (${req.method} ${req.url})`);
  if (!/^Bearer \S+$/.test(req.headers.authorization ?? '')) return sendError(res, 401, 'Incorrect API key provided.');
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return sendError(res, 400, 'We could not parse the JSON body of your request.');
  }
  const stream = body.stream === true;
  const answer = answerFor(String(body.model), stream, body.stream_options?.include_usage === true);
  setTimeout(() => {
    if (res.destroyed) return;
    res.writeHead(200, {
      'content-type': stream ? 'text/event-stream; charset=utf-8' : 'application/json',
      ...(stream ? { 'cache-control': 'no-cache' } : { 'content-length': answer.length }),
      'openai-processing-ms': String(LATENCY_MS),
    });
    res.end(answer);
  }, LATENCY_MS);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
});
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
