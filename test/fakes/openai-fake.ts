/**
 * A fake OpenAI-compatible host on 127.0.0.1 speaking the real wire format: chat completions (JSON and
 * SSE with `data: [DONE]`), native Responses (JSON and the typed event stream), embeddings and the
 * Cohere/Jina rerank (embedding-answers.ts), the model list, OpenAI's
 * own error bodies, and the failure modes of fake-provider.ts. Replies are encoded once per request
 * shape and replayed, like a recorded fixture, so the benchmark measures the router, not the fake.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openaiEmbeddingsAnswer, rerankAnswer } from './embedding-answers.js';
import { credentialEcho, type FakeFailure, type FakeProvider, type FakeReply, type RecordedRequest } from './fake-provider.js';

export interface OpenAIFake extends FakeProvider {
  /** Headers of the last request received (undefined before the first). */
  lastHeaders(): RecordedRequest['headers'] | undefined;
  /** Answer every request bearing this key with OpenAI's 401 invalid_api_key, until reset(): a revoked key among valid ones. */
  rejectKey(credential: string): void;
}

/** Usage reported when the reply does not set one. */
export const OPENAI_FAKE_DEFAULT_USAGE = { inputTokens: 10, outputTokens: 20 } as const;
const CREATED = 1_700_000_000;
const MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1'];

type Json = Record<string, unknown>;
interface Reply {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  usage: { inputTokens: number; outputTokens: number };
  /** vLLM's `stop_reason` beside a `stop` finish, when set. */
  stopReason?: string;
  /** `reasoning_content` before the answer (DeepSeek's and vLLM's field), when the request asked for reasoning. */
  thoughts?: string;
  /** Responses: hosted tool call item types before the answer. */
  hostedCalls: readonly string[];
  /** Chat: no content, no finish reason, 0 completion tokens. */
  empty: boolean;
}
interface Shape {
  api: 'chat' | 'responses';
  stream: boolean;
  includeUsage: boolean;
  model: string;
  /** The request offers tools and its last input is not a tool result. */
  toolTurn: boolean;
  /** Responses: whether the host keeps the response (OpenAI's default is true), echoed in the answer. */
  store: boolean;
  /** Chat: the request set `reasoning_effort`. */
  reasoning: boolean;
}
/** One complete answer: a JSON body, or SSE events each already framed and encoded. */
interface Encoded {
  json?: Buffer;
  events?: Buffer[];
  /** The in-stream failure event of this API, sent by `mid-stream-error` after that many events. */
  failureEvent?: (afterEvents: number) => Buffer;
}

export async function startOpenAIFake(options: { name?: string } = {}): Promise<OpenAIFake> {
  const name = options.name ?? 'openai-fake';
  const requests: RecordedRequest[] = [];
  const queued: Array<{ failure: FakeFailure; remaining: number }> = [];
  let always: FakeFailure | undefined;
  const rejectedKeys = new Set<string>();
  let reply: FakeReply = {};
  let aborted = 0;
  let closing = false;
  const encoded = new Map<string, Encoded>();

  function takeFailure(): FakeFailure | undefined {
    const head = queued[0];
    if (head === undefined) return always;
    head.remaining -= 1;
    if (head.remaining <= 0) queued.shift();
    return head.failure;
  }

  function encodedFor(shape: Shape): Encoded {
    const key = `${shape.api}|${shape.stream}|${shape.includeUsage}|${shape.model}|${shape.store}|${shape.toolTurn}|${shape.reasoning}`;
    let entry = encoded.get(key);
    if (entry === undefined) {
      entry = encodeReply(shape, resolveReply(replyFor(shape.model), name, shape), `${encoded.size + 1}`);
      encoded.set(key, entry);
    }
    return entry;
  }

  /** The reply settings for one model: its `byModel` entry over the general ones. */
  function replyFor(model: string): FakeReply {
    return { ...reply, ...reply.byModel?.[model] };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? '/';
    const body = await readBody(req);
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    let selfClosed = false;
    res.on('close', () => {
      if (!res.writableFinished && !selfClosed && !closing) aborted += 1;
    });
    const disconnect = (): void => {
      selfClosed = true;
      res.socket?.destroy();
    };
    const authError = checkAuthorization(req.headers.authorization);
    if (authError !== undefined) return sendJson(res, 401, authError);
    if (rejectedKeys.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return sendJson(res, 401, INVALID_KEY_ERROR);
    const failure = takeFailure();
    if (failure?.kind === 'hang') return;
    if (failure?.kind === 'slow-first-byte') await sleep(failure.delayMs);
    const { latencyMs, heldUntil } = replyFor(modelOf(body));
    if (latencyMs !== undefined && latencyMs > 0) await sleep(latencyMs);
    if (heldUntil !== undefined) await heldUntil;
    if (res.destroyed) return;
    const credential = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (failure?.kind === 'status' && failure.echoCredential) return sendJson(res, failure.status, openaiError(credentialEcho(credential), null, 'invalid_api_key'));
    if (failure?.kind === 'status') return sendStatusFailure(res, failure, modelOf(body));
    if (failure?.kind === 'out-of-credit') return sendOutOfCredit(res, failure.inStream === true && path.startsWith('/v1/responses'), modelOf(body));

    const routed = route(req.method ?? 'GET', path, body, name);
    if ('status' in routed) return sendJson(res, routed.status, routed.body);
    const answer = encodedFor(routed);
    const echoing = failure?.kind === 'mid-stream-error' && failure.echoCredential && answer.failureEvent ? { ...answer, failureEvent: echoFailure(routed, credential) } : answer;
    await sendAnswer(res, echoing, failure, { splitBytes: reply.splitBytes, eventDelayMs: reply.eventDelayMs }, disconnect);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get abortedRequests() {
      return aborted;
    },
    lastHeaders: () => requests.at(-1)?.headers,
    rejectKey(credential) {
      rejectedKeys.add(credential);
    },
    failNext(failure, times = 1) {
      if (times > 0) queued.push({ failure, remaining: times });
    },
    failAlways(failure) {
      always = failure;
    },
    setReply(next) {
      reply = next;
      encoded.clear();
    },
    reset() {
      queued.length = 0;
      always = undefined;
      rejectedKeys.clear();
      reply = {};
      encoded.clear();
      requests.length = 0;
      aborted = 0;
    },
    async close() {
      closing = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a request asks for, or the answer OpenAI gives a request it cannot serve. */
function route(method: string, path: string, body: unknown, name: string): Shape | { status: number; body: unknown } {
  const endpoint = `${method} ${path.split('?')[0]}`;
  if (endpoint === 'GET /v1/models') return { status: 200, body: modelList(name) };
  if (endpoint === 'POST /v1/embeddings') return isJson(body) ? openaiEmbeddingsAnswer(body) : { status: 400, body: INVALID_JSON_ERROR };
  if (endpoint === 'POST /v1/rerank') return isJson(body) ? rerankAnswer(body) : { status: 400, body: INVALID_JSON_ERROR };
  const api = endpoint === 'POST /v1/chat/completions' ? 'chat' : endpoint === 'POST /v1/responses' ? 'responses' : undefined;
  if (api === undefined) return { status: 404, body: openaiError(`Invalid URL (${method} ${path})`, null, null) };
  if (!isJson(body)) return { status: 400, body: INVALID_JSON_ERROR };
  if (api === 'chat' && !Array.isArray(body.messages)) {
    return { status: 400, body: openaiError("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter') };
  }
  const toolCallProblem = api === 'chat' ? toolCallIdProblem(body.messages as unknown[]) : undefined;
  if (toolCallProblem) return { status: 400, body: toolCallProblem };
  if (api === 'responses' && typeof body.previous_response_id === 'string') {
    // This host keeps no responses, so every id is unknown: OpenAI's answer for an id it does not have.
    const message = `Previous response with id '${body.previous_response_id}' not found.`;
    return { status: 400, body: openaiError(message, 'previous_response_id', 'previous_response_not_found') };
  }
  const streamOptions = isJson(body.stream_options) ? body.stream_options : {};
  return {
    api,
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
    model: modelOf(body),
    store: body.store !== false,
    toolTurn: isToolTurn(body),
    reasoning: typeof body.reasoning_effort === 'string',
  };
}

/** OpenAI's limit on a chat tool call's id. */
const MAX_TOOL_CALL_ID = 40;

/**
 * The checks OpenAI makes on a chat history's tool calls, in its words: each call id at most 40
 * characters, every call answered by a tool message before the next turn, and no tool message that
 * answers no call.
 */
function toolCallIdProblem(messages: unknown[]): ErrorBody | undefined {
  let open: string[] = [];
  for (const [i, message] of messages.entries()) {
    if (!isJson(message)) continue;
    if (message.role === 'tool') {
      const id = String(message.tool_call_id);
      if (!open.includes(id)) return openaiError("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`, null);
      open = open.filter((pending) => pending !== id);
      continue;
    }
    if (open.length > 0) {
      return openaiError(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`, 'messages', null);
    }
    const calls: unknown[] = message.role === 'assistant' && Array.isArray(message.tool_calls) ? message.tool_calls : [];
    for (const [j, call] of calls.entries()) {
      const id = isJson(call) && typeof call.id === 'string' ? call.id : '';
      if (id.length > MAX_TOOL_CALL_ID) {
        return openaiError(`Invalid 'messages[${i}].tool_calls[${j}].id': string too long. Expected a string with maximum length ${MAX_TOOL_CALL_ID}, but got a string with length ${id.length} instead.`, `messages[${i}].tool_calls[${j}].id`, 'string_above_max_length');
      }
      open.push(id);
    }
  }
  return undefined;
}

function isToolTurn(body: Json): boolean {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return false;
  const inputs: unknown[] = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : [];
  const last = inputs.at(-1);
  return !(isJson(last) && (last.role === 'tool' || last.type === 'function_call_output'));
}

/**
 * Sends a successful answer, or its broken variant. Mid-stream failures on a non-stream request take
 * the nearest form a real host shows: a dropped connection, or a 500.
 */
async function sendAnswer(
  res: ServerResponse,
  answer: Encoded,
  failure: FakeFailure | undefined,
  pacing: Pacing,
  disconnect: () => void,
): Promise<void> {
  const midStream =
    failure?.kind === 'mid-stream-error' || failure?.kind === 'mid-stream-disconnect' || failure?.kind === 'truncated-stream' ? failure : undefined;
  if (answer.json !== undefined) {
    if (midStream?.kind === 'mid-stream-disconnect') return disconnect();
    if (midStream?.kind === 'mid-stream-error') return sendJson(res, 500, SERVER_ERROR);
    if (midStream?.kind === 'truncated-stream') return void res.writeHead(200, { 'content-type': 'application/json', ...commonHeaders() }).end(answer.json.subarray(0, 10));
    res.writeHead(200, { 'content-type': 'application/json', ...commonHeaders() });
    await writePieces(res, [answer.json], pacing);
    res.end();
    return;
  }
  const events = answer.events ?? [];
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...commonHeaders() });
  if (midStream === undefined) {
    await writePieces(res, events, pacing);
  } else {
    await writePieces(res, events.slice(0, midStream.afterEvents), pacing);
    if (midStream.kind === 'mid-stream-disconnect') return disconnect();
    if (midStream.kind === 'mid-stream-error' && answer.failureEvent !== undefined) await writePieces(res, [answer.failureEvent(midStream.afterEvents)], pacing);
  }
  res.end();
}

function resolveReply(reply: FakeReply, name: string, shape: Shape): Reply {
  const toolCalls = reply.toolCallsWhenOffered && !shape.toolTurn ? [] : (reply.toolCalls ?? []);
  return {
    text: reply.text ?? `Hello from ${name}: héllo 👋 世界`,
    toolCalls: toolCalls.map((call, i) => ({ id: `call_fake${i}`, name: call.name, arguments: JSON.stringify(call.arguments) })),
    usage: reply.usage ?? OPENAI_FAKE_DEFAULT_USAGE,
    hostedCalls: reply.hostedCalls ?? [],
    empty: reply.emptyCompletion === true,
    ...(reply.emptyCompletion ? { text: '', usage: { inputTokens: (reply.usage ?? OPENAI_FAKE_DEFAULT_USAGE).inputTokens, outputTokens: 0 } } : {}),
    ...(reply.stopReason !== undefined ? { stopReason: reply.stopReason } : {}),
    ...(reply.thoughts !== undefined && shape.reasoning ? { thoughts: reply.thoughts } : {}),
  };
}

function encodeReply(shape: Shape, reply: Reply, serial: string): Encoded {
  if (shape.api === 'chat') {
    const id = `chatcmpl-fake${serial}`;
    if (!shape.stream) return { json: Buffer.from(JSON.stringify(chatCompletion(id, shape.model, reply))) };
    return { events: chatChunks(id, shape, reply).map(dataEvent).concat(DONE_EVENT), failureEvent: () => dataEvent(SERVER_ERROR) };
  }
  const response = responseObject(`resp_fake${serial}`, shape, reply);
  if (!shape.stream) return { json: Buffer.from(JSON.stringify(response)) };
  const events = responseEvents(response, reply);
  const failed = { ...response, status: 'failed', output: [], usage: null, error: { code: 'server_error', message: SERVER_ERROR.error.message } };
  return {
    events: events.map(typedEvent),
    failureEvent: (afterEvents) => typedEvent({ type: 'response.failed', sequence_number: Math.min(afterEvents, events.length), response: failed }),
  };
}

/** The in-stream failure event of this API, its message quoting the credential. */
function echoFailure(shape: Shape, credential: string): (afterEvents: number) => Buffer {
  const error = openaiError(credentialEcho(credential), null, null, 'server_error');
  if (shape.api === 'chat') return () => dataEvent(error);
  return (afterEvents) => typedEvent({ type: 'response.failed', sequence_number: afterEvents, response: { object: 'response', status: 'failed', error: { code: 'server_error', message: error.error.message } } });
}

function chatCompletion(id: string, model: string, reply: Reply): Json {
  const toolCalls = reply.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  const message: Json = { role: 'assistant', content: toolCalls.length > 0 ? null : reply.text, refusal: null, annotations: [] };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reply.thoughts !== undefined) message.reasoning_content = reply.thoughts;
  const finishReason = reply.empty ? null : toolCalls.length > 0 ? 'tool_calls' : 'stop';
  return {
    id, object: 'chat.completion', created: CREATED, model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason, ...vllmStopReason(reply, finishReason) }],
    usage: chatUsage(reply), service_tier: 'default', system_fingerprint: 'fp_fake',
  };
}

/** OpenAI's real sequence: role chunk, deltas, finish chunk, then the usage chunk with `choices: []`. */
function chatChunks(id: string, shape: Shape, reply: Reply): Json[] {
  const base = { id, object: 'chat.completion.chunk', created: CREATED, model: shape.model, service_tier: 'default', system_fingerprint: 'fp_fake' };
  const usageField = shape.includeUsage ? { usage: null } : {};
  const chunk = (delta: Json, finishReason: string | null = null): Json => ({
    ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...usageField,
  });
  const hasTools = reply.toolCalls.length > 0;
  const chunks = [chunk({ role: 'assistant', content: hasTools ? null : '', refusal: null })];
  if (reply.thoughts !== undefined) for (const piece of textPieces(reply.thoughts)) chunks.push(chunk({ reasoning_content: piece }));
  if (!hasTools) for (const piece of textPieces(reply.text)) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of argumentPieces(call.arguments)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  if (!reply.empty) {
    const finish = chunk({}, hasTools ? 'tool_calls' : 'stop');
    Object.assign((finish.choices as Json[])[0]!, vllmStopReason(reply, hasTools ? 'tool_calls' : 'stop'));
    chunks.push(finish);
  }
  if (shape.includeUsage) chunks.push({ ...base, choices: [], usage: chatUsage(reply) });
  return chunks;
}

/** quirk(vllm): the stop sequence that matched, as the choice's `stop_reason`. */
function vllmStopReason(reply: Reply, finishReason: string | null): Json {
  return reply.stopReason !== undefined && finishReason === 'stop' ? { stop_reason: reply.stopReason } : {};
}

function chatUsage(reply: Reply): Json {
  const { inputTokens, outputTokens } = reply.usage;
  return {
    prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function responseObject(id: string, { model, store }: Shape, reply: Reply): Json {
  const output: Json[] = reply.toolCalls.map((call, i) => ({
    id: `fc_fake${i}`, type: 'function_call', status: 'completed', call_id: call.id, name: call.name, arguments: call.arguments,
  }));
  if (output.length === 0) {
    output.push({
      id: 'msg_fake0', type: 'message', status: 'completed', role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }],
    });
  }
  output.unshift(...reply.hostedCalls.map((type, i) => ({ id: `hosted_fake${i}`, type, status: 'completed' })));
  const { inputTokens, outputTokens } = reply.usage;
  return {
    id, object: 'response', created_at: CREATED, status: 'completed', background: false, error: null, incomplete_details: null,
    instructions: null, max_output_tokens: null, model, output, parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, store, temperature: 1, text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled', metadata: {},
    usage: {
      input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + outputTokens,
    },
  };
}

/** The canonical event sequence of wire-formats §2.3, numbered from 0. */
function responseEvents(response: Json, reply: Reply): Json[] {
  const events: Json[] = [];
  const emit = (type: string, fields: Json): void => {
    events.push({ type, sequence_number: events.length, ...fields });
  };
  const skeleton = { ...response, status: 'in_progress', output: [], usage: null };
  emit('response.created', { response: skeleton });
  emit('response.in_progress', { response: skeleton });
  (response.output as Json[]).forEach((item, outputIndex) => {
    const at = { item_id: item.id, output_index: outputIndex };
    if (item.type === 'message') {
      const part = { type: 'output_text', text: reply.text, annotations: [], logprobs: [] };
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      emit('response.content_part.added', { ...at, content_index: 0, part: { ...part, text: '' } });
      for (const delta of textPieces(reply.text)) emit('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] });
      emit('response.output_text.done', { ...at, content_index: 0, text: reply.text, logprobs: [] });
      emit('response.content_part.done', { ...at, content_index: 0, part });
    } else {
      const args = item.arguments as string;
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of argumentPieces(args)) emit('response.function_call_arguments.delta', { ...at, delta });
      emit('response.function_call_arguments.done', { ...at, arguments: args, name: item.name });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  });
  emit('response.completed', { response });
  return events;
}

/** Token-like pieces: each word with its leading whitespace. */
function textPieces(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** Arguments stream in pieces of 8 code points (never splitting a surrogate pair). */
function argumentPieces(args: string): string[] {
  const points = Array.from(args);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += 8) pieces.push(points.slice(i, i + 8).join(''));
  return pieces;
}

const DONE_EVENT = Buffer.from('data: [DONE]\n\n');
const dataEvent = (json: unknown): Buffer => Buffer.from(`data: ${JSON.stringify(json)}\n\n`);
const typedEvent = (json: Json): Buffer => Buffer.from(`event: ${String(json.type)}\ndata: ${JSON.stringify(json)}\n\n`);

function modelList(name: string): Json {
  return { object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: CREATED, owned_by: name })) };
}

// ---- OpenAI's error bodies, as its API sends them ----

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

function openaiError(message: string, param: string | null, code: string | null, type = 'invalid_request_error'): ErrorBody {
  return { error: { message, type, param, code } };
}

const SERVER_ERROR = openaiError('The server had an error while processing your request. Sorry about that!', null, null, 'server_error');
const INVALID_JSON_ERROR = openaiError(
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
  null, null,
);
const INVALID_KEY_ERROR = openaiError(
  'Incorrect API key provided: sk-fake*********************1234. You can find your API key at https://platform.openai.com/account/api-keys.',
  null, 'invalid_api_key',
);

function checkAuthorization(header: string | undefined): ErrorBody | undefined {
  if (header === undefined || header === '') {
    return openaiError(
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
      null, null,
    );
  }
  return /^Bearer \S+$/.test(header) ? undefined : INVALID_KEY_ERROR;
}

/** 502 and 504 come from the CDN in front of the API, as HTML. */
function proxyPage(status: number, title: string): string {
  return `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n`;
}

function sendStatusFailure(res: ServerResponse, failure: Extract<FakeFailure, { kind: 'status' }>, model: string): void {
  const { status } = failure;
  if (status === 502 || status === 504) {
    res.writeHead(status, { 'content-type': 'text/html', ...commonHeaders() });
    res.end(proxyPage(status, status === 502 ? 'Bad Gateway' : 'Gateway Time-out'));
    return;
  }
  const retryAfter = failure.retryAfterSeconds ?? (status === 429 ? 20 : undefined);
  const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': String(retryAfter), 'x-ratelimit-reset-requests': `${retryAfter}s` };
  sendJson(res, status, errorBodyFor(status, model, retryAfter ?? 20), headers);
}

/** OpenAI's answer to an account without credit (its documented 429 insufficient_quota). */
const QUOTA_MESSAGE = 'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.';

function sendOutOfCredit(res: ServerResponse, inStream: boolean, model: string): void {
  if (!inStream) return sendJson(res, 429, openaiError(QUOTA_MESSAGE, null, 'insufficient_quota', 'insufficient_quota'));
  // quirk(openai): a Responses stream can start (200, response.created) and then fail for the balance.
  const skeleton = { id: 'resp_fake_quota', object: 'response', created_at: CREATED, status: 'in_progress', model, output: [], usage: null, error: null };
  const events = [
    { type: 'response.created', sequence_number: 0, response: skeleton },
    { type: 'response.in_progress', sequence_number: 1, response: skeleton },
    { type: 'response.failed', sequence_number: 2, response: { ...skeleton, status: 'failed', error: { code: 'insufficient_quota', message: QUOTA_MESSAGE } } },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream', ...commonHeaders() });
  res.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
}

function errorBodyFor(status: number, model: string, retryAfter: number): ErrorBody {
  switch (status) {
    case 400:
      return openaiError(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130017 tokens. Please reduce the length of the messages.",
        'messages', 'context_length_exceeded',
      );
    case 401:
      return INVALID_KEY_ERROR;
    case 403:
      return openaiError('Country, region, or territory not supported', null, 'unsupported_country_region_territory', 'request_forbidden');
    case 404:
      return openaiError(`The model \`${model}\` does not exist or you do not have access to it.`, null, 'model_not_found');
    case 429:
      return openaiError(
        `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${retryAfter}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        null, 'rate_limit_exceeded', 'requests',
      );
    case 503:
      return openaiError('The engine is currently overloaded, please try again later', null, null, 'server_error');
    default:
      return status >= 500 ? SERVER_ERROR : openaiError(`Request failed with status ${status}.`, null, null);
  }
}

// ---- HTTP plumbing ----

function commonHeaders(): Record<string, string> {
  return { 'x-request-id': `req_${randomBytes(12).toString('hex')}`, 'openai-processing-ms': '1', 'openai-version': '2020-10-01' };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...commonHeaders(), ...headers });
  res.end(JSON.stringify(body));
}

interface Pacing {
  splitBytes?: number | undefined;
  eventDelayMs?: number | undefined;
}

/**
 * Writes each buffer whole, or in `splitBytes`-sized pieces with a turn of the event loop after each, so
 * that a client (even one in the same process) reads them as separate network chunks; with
 * `eventDelayMs`, waits that long before every buffer after the first.
 */
async function writePieces(res: ServerResponse, buffers: Buffer[], { splitBytes, eventDelayMs }: Pacing): Promise<void> {
  for (const [index, buffer] of buffers.entries()) {
    if (index > 0 && eventDelayMs !== undefined && eventDelayMs > 0) await sleep(eventDelayMs);
    const size = splitBytes !== undefined && splitBytes > 0 ? splitBytes : buffer.length;
    for (let offset = 0; offset < buffer.length; offset += size) {
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(buffer.subarray(offset, offset + size), () => resolve()));
      if (size < buffer.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function modelOf(body: unknown): string {
  return isJson(body) && typeof body.model === 'string' ? body.model : 'gpt-4o-mini';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
