/**
 * A small, fast fake upstream for the benchmark, run as its own process so its CPU is not the router's.
 * Answers after a fixed latency, in each provider format the router speaks, with one piece per word
 * when streaming:
 * - OpenAI `POST /v1/chat/completions`: a real chat.completion, or real SSE framing (role chunk, one
 *   chunk per word, finish chunk, optional usage chunk, then `data: [DONE]`);
 * - Anthropic `POST /v1/messages`: a message, or its event sequence (message_start, content block
 *   start / one text_delta per word / stop, message_delta with usage, message_stop);
 * - Gemini `POST /v1/models/<model>:generateContent` or `:streamGenerateContent?alt=sse`: a
 *   GenerateContentResponse, or one per word as SSE events, the last with finishReason and usage;
 * - OpenAI `POST /v1/responses`: a Response, or its event sequence (response.created, in_progress,
 *   output item and content part added, one output_text.delta per word, their done events,
 *   response.completed), each `event: <type>\ndata: <json>` with its sequence_number.
 * Replies are encoded once per (format, model, stream, usage) and replayed, so the fake costs as little
 * CPU as possible. Prints `{"port":N}` on stdout when listening; exits when stdin closes,
 * so it never outlives the benchmark.
 *
 * A request whose credential starts with `sk-bench-slow` is a slow stream (the noisy neighbour of
 * measure-noisy-neighbour.mjs): its headers and first event come after the usual latency, then only an
 * SSE comment each second until the client goes away or BENCH_SLOW_HOLD_MS (60 s) has passed.
 * One whose credential starts with `sk-bench-long` is a long but complete stream: the usual answer's
 * events spread evenly over BENCH_LONG_STREAM_MS (4 s), terminator included (deploy/test/'s drain check).
 *
 * Env: BENCH_LATENCY_MS (default 20; 0 answers at once, in the request's own tick: the instant mock of
 * the throughput stage), BENCH_SLOW_HOLD_MS (60000), BENCH_LONG_STREAM_MS (4000).
 */
import { createServer } from 'node:http';

const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const SLOW_HOLD_MS = Number(process.env.BENCH_SLOW_HOLD_MS ?? 60_000);
const LONG_STREAM_MS = Number(process.env.BENCH_LONG_STREAM_MS ?? 4_000);
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

const WORDS = TEXT.match(/\s*\S+/g);

function anthropicMessage(model) {
  return {
    id: 'msg_bench0001', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: TEXT }],
    stop_reason: 'end_turn', stop_sequence: null,
    usage: { input_tokens: 24, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20 },
  };
}

function anthropicEvents(model) {
  const message = anthropicMessage(model);
  const frames = [
    ['message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } }],
    ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
    ['ping', {}],
    ...WORDS.map((piece) => ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } }]),
    ['content_block_stop', { index: 0 }],
    ['message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } }],
    ['message_stop', {}],
  ];
  return Buffer.concat(frames.map(([event, data]) => Buffer.from(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`)));
}

const GEMINI_USAGE = { promptTokenCount: 24, candidatesTokenCount: 20, totalTokenCount: 44 };

function geminiResponse(model, parts, last) {
  const candidate = { content: { parts, role: 'model' }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) };
  return { candidates: [candidate], usageMetadata: last ? GEMINI_USAGE : { promptTokenCount: 24, totalTokenCount: 24 }, modelVersion: model, responseId: 'bench0001' };
}

function geminiEvents(model) {
  return Buffer.concat(WORDS.map((piece, i) => Buffer.from(`data: ${JSON.stringify(geminiResponse(model, [{ text: piece }], i === WORDS.length - 1))}\n\n`)));
}

function responseObject(model, status, output) {
  return {
    id: 'resp_bench0001', object: 'response', created_at: CREATED, status, error: null, incomplete_details: null,
    instructions: null, max_output_tokens: 128, model, output, parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, store: false, temperature: 0.2, text: { format: { type: 'text' } },
    tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled',
    usage: status === 'completed' ? { input_tokens: 24, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 44 } : null,
    user: null, metadata: {},
  };
}

const RESPONSE_PART = { type: 'output_text', text: TEXT, annotations: [] };
const RESPONSE_ITEM = { id: 'msg_bench0001', type: 'message', status: 'completed', role: 'assistant', content: [RESPONSE_PART] };

function responsesEvents(model) {
  const at = { item_id: RESPONSE_ITEM.id, output_index: 0, content_index: 0 };
  const events = [
    ['response.created', { response: responseObject(model, 'in_progress', []) }],
    ['response.in_progress', { response: responseObject(model, 'in_progress', []) }],
    ['response.output_item.added', { output_index: 0, item: { ...RESPONSE_ITEM, status: 'in_progress', content: [] } }],
    ['response.content_part.added', { ...at, part: { ...RESPONSE_PART, text: '' } }],
    ...WORDS.map((delta) => ['response.output_text.delta', { ...at, delta, logprobs: [] }]),
    ['response.output_text.done', { ...at, text: TEXT, logprobs: [] }],
    ['response.content_part.done', { ...at, part: RESPONSE_PART }],
    ['response.output_item.done', { output_index: 0, item: RESPONSE_ITEM }],
    ['response.completed', { response: responseObject(model, 'completed', [RESPONSE_ITEM]) }],
  ];
  return Buffer.concat(events.map(([type, data], sequence) => Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...data })}\n\n`)));
}

const ENCODERS = {
  responses: (model, stream) => (stream ? responsesEvents(model) : Buffer.from(JSON.stringify(responseObject(model, 'completed', [RESPONSE_ITEM])))),
  openai: (model, stream, includeUsage) => (stream ? chunkEvents(model, includeUsage) : Buffer.from(JSON.stringify(completion(model)))),
  anthropic: (model, stream) => (stream ? anthropicEvents(model) : Buffer.from(JSON.stringify(anthropicMessage(model)))),
  gemini: (model, stream) => (stream ? geminiEvents(model) : Buffer.from(JSON.stringify(geminiResponse(model, [{ text: TEXT }], true)))),
};

function answerFor(format, model, stream, includeUsage) {
  const key = `${format}|${model}|${stream}|${includeUsage}`;
  let answer = encoded.get(key);
  if (answer === undefined) {
    answer = ENCODERS[format](model, stream, includeUsage);
    encoded.set(key, answer);
  }
  return answer;
}

const GEMINI_PATH = /^\/v1\/models\/([^/:]+):(generateContent|streamGenerateContent\?alt=sse)$/;

/** Which format a request speaks, its model and whether it streams; undefined for an unknown path. */
function routeOf(req, body) {
  if (req.url === '/v1/chat/completions') return { format: 'openai', model: String(body.model), stream: body.stream === true, credential: /^Bearer \S+$/.test(req.headers.authorization ?? '') };
  if (req.url === '/v1/responses') return { format: 'responses', model: String(body.model), stream: body.stream === true, credential: /^Bearer \S+$/.test(req.headers.authorization ?? '') };
  if (req.url === '/v1/messages') return { format: 'anthropic', model: String(body.model), stream: body.stream === true, credential: Boolean(req.headers['x-api-key']) };
  const gemini = GEMINI_PATH.exec(req.url ?? '');
  if (gemini) return { format: 'gemini', model: decodeURIComponent(gemini[1]), stream: gemini[2] !== 'generateContent', credential: Boolean(req.headers['x-goog-api-key']) };
  return undefined;
}

function sendError(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } }));
}

function handle(req, res, text) {
  if (req.method !== 'POST') return sendError(res, 404, `Invalid URL (${req.method} ${req.url})`);
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return sendError(res, 400, 'We could not parse the JSON body of your request.');
  }
  const route = routeOf(req, body);
  if (!route) return sendError(res, 404, `Invalid URL (${req.method} ${req.url})`);
  if (!route.credential) return sendError(res, 401, 'Incorrect API key provided.');
  const { stream } = route;
  if ((req.headers.authorization ?? '').startsWith('Bearer sk-bench-slow')) return holdSlowStream(res, route.model);
  const answer = answerFor(route.format, route.model, stream, body.stream_options?.include_usage === true);
  if (stream && (req.headers.authorization ?? '').startsWith('Bearer sk-bench-long')) return spreadStream(res, answer);
  const send = () => {
    if (res.destroyed) return;
    res.writeHead(200, {
      'content-type': stream ? 'text/event-stream; charset=utf-8' : 'application/json',
      ...(stream ? { 'cache-control': 'no-cache' } : { 'content-length': answer.length }),
      'openai-processing-ms': String(LATENCY_MS),
    });
    res.end(answer);
  };
  // setTimeout(…, 0) would still wait for the timers phase (about 1 ms): an instant mock answers now.
  if (LATENCY_MS === 0) send();
  else setTimeout(send, LATENCY_MS);
}

/** A stream that has started and then takes its time: one comment a second, so no idle timeout ends it. */
function holdSlowStream(res, model) {
  setTimeout(() => {
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const first = { id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: CREATED, model, choices: [{ index: 0, delta: { role: 'assistant', content: 'Thinking' }, logprobs: null, finish_reason: null }] };
    res.write(`data: ${JSON.stringify(first)}\n\n`);
    const ticker = setInterval(() => res.write(': still thinking\n\n'), 1000);
    const done = setTimeout(() => res.end(), SLOW_HOLD_MS);
    res.on('close', () => (clearInterval(ticker), clearTimeout(done)));
  }, LATENCY_MS);
}

/** A complete stream whose events (each ends in a blank line) arrive evenly over LONG_STREAM_MS. */
function spreadStream(res, answer) {
  const events = answer.toString('utf8').split(/(?<=\n\n)/);
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let next = 0;
  const ticker = setInterval(() => {
    if (res.destroyed) return clearInterval(ticker);
    res.write(events[next++]);
    if (next === events.length) (clearInterval(ticker), res.end());
  }, LONG_STREAM_MS / events.length);
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
