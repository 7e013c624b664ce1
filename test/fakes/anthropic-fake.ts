/**
 * A fake Anthropic Messages API on 127.0.0.1. It speaks the real wire format (message bodies, named
 * SSE events, error bodies) and rejects requests the real API would reject — missing headers or
 * max_tokens, roles that do not alternate, tool results that are missing or not first, empty text
 * blocks, temperature above 1, fields Anthropic does not know — so translation bugs fail loudly.
 *
 * Mid-stream failures on a non-stream request: `mid-stream-error` answers 529 overloaded_error, and
 * `mid-stream-disconnect` and `truncated-stream` send half of the JSON body, then destroy the socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { credentialEcho, type FakeFailure, type FakeProvider, type FakeReply, type RecordedRequest } from './fake-provider.js';
import { recordedStream, type RecordedAnswer } from './recorded-answer.js';

/** The default answer; the multi-byte characters make byte-level splits land mid-character. */
export const ANTHROPIC_FAKE_TEXT = 'Hello from the Anthropic fake: héllo 👋 世界';
const DEFAULT_USAGE = { inputTokens: 12, outputTokens: 9 };
const KNOWN_FIELDS = new Set([
  'model', 'messages', 'max_tokens', 'system', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'stream', 'tools',
  'tool_choice', 'metadata', 'thinking', 'output_config', 'service_tier', 'context_management',
  'mcp_servers', 'container', 'inference_geo', 'output_format',
]);
/** Anthropic's server tools carry a versioned type and no input_schema. */
const SERVER_TOOL_TYPE = /^[a-z_]+_\d{8}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const ERROR_OF_STATUS: Record<number, [type: string, message: string]> = {
  400: ['invalid_request_error', 'Invalid request.'],
  401: ['authentication_error', 'invalid x-api-key'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'model: claude-fake-missing'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'This request would exceed the rate limit for your organization.'],
  500: ['api_error', 'Internal server error'],
  502: ['api_error', 'Bad gateway'],
  503: ['api_error', 'Service unavailable'],
  504: ['timeout_error', 'Request timeout'],
  529: ['overloaded_error', 'Overloaded'],
};

type Json = Record<string, unknown>;
interface SseFrame {
  event: string;
  data: Json;
}
interface Rejection {
  status: number;
  type: string;
  message: string;
}

export async function startAnthropicFake(): Promise<FakeProvider> {
  const fake = new AnthropicFake();
  await fake.listen();
  return fake;
}

class AnthropicFake implements FakeProvider {
  readonly requests: RecordedRequest[] = [];
  #baseUrl = '';
  #pending: FakeFailure[] = [];
  #always: FakeFailure | undefined;
  #reply: FakeReply = {};
  #aborted = 0;
  #served = 0;
  #closing = false;
  // A request the client abandons while its body is still arriving makes #handle reject; drop it.
  readonly #server = createServer((req, res) => void this.#handle(req, res).catch(() => res.destroy()));

  get baseUrl(): string {
    return this.#baseUrl;
  }

  get abortedRequests(): number {
    return this.#aborted;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#baseUrl = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  failNext(failure: FakeFailure, times = 1): void {
    for (let i = 0; i < times; i++) this.#pending.push(failure);
  }

  failAlways(failure: FakeFailure): void {
    this.#always = failure;
  }

  setReply(reply: FakeReply): void {
    this.#reply = reply;
  }

  /** Also zeroes abortedRequests, so each test starts from a clean count. */
  reset(): void {
    this.#pending = [];
    this.#always = undefined;
    this.#reply = {};
    this.#aborted = 0;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** count_tokens: the failure modes apply; the count is the length of the messages' JSON, so tests can predict it. */
  #countTokens(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const rejection = validateHeaders(req);
    if (rejection) return sendError(res, rejection.status, rejection.type, rejection.message);
    const failure = this.#pending.shift() ?? this.#always;
    if (failure?.kind === 'status') return sendStatusFailure(res, failure.status, failure.retryAfterSeconds);
    sendJson(res, 200, { input_tokens: JSON.stringify((body as Json | undefined)?.messages ?? null).length });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let destroyedByFake = false;
    res.on('close', () => {
      if (!res.writableEnded && !destroyedByFake && !this.#closing) this.#aborted++;
    });
    const raw = await readBody(req);
    const body = parseJson(raw);
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body: body ?? raw });
    const reply = this.#reply;
    await sleep(reply.latencyMs ?? 0);
    if (res.destroyed) return;
    if (req.method === 'POST' && req.url?.split('?')[0] === '/v1/messages/count_tokens') return this.#countTokens(req, res, body);
    const rejection = validateRoute(req) ?? validateHeaders(req) ?? validateBody(body);
    if (rejection) return sendError(res, rejection.status, rejection.type, rejection.message);
    const request = body as Json;
    const answer = asToolTurn(reply, request);
    const failure = this.#pending.shift() ?? this.#always;
    const id = `msg_fake${String(++this.#served).padStart(6, '0')}`;
    const stream = request.stream === true;
    const disconnect = (): void => {
      destroyedByFake = true;
      res.destroy();
    };
    switch (failure?.kind) {
      case 'status':
        if (failure.echoCredential) return sendError(res, failure.status, 'authentication_error', credentialEcho(String(req.headers['x-api-key'])));
        return sendStatusFailure(res, failure.status, failure.retryAfterSeconds);
      case 'out-of-credit':
        // Anthropic's documented billing_error (https://docs.anthropic.com/en/api/errors).
        return sendError(res, 402, 'billing_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.');
      case 'hang':
        return;
      case 'slow-first-byte':
        await sleep(failure.delayMs);
        if (res.destroyed) return;
        break;
      case 'mid-stream-error':
        if (!stream) return sendStatusFailure(res, 529);
        return sendStream(res, streamFrames(id, request, answer), reply.splitBytes, {
          afterEvents: failure.afterEvents,
          then: () => writeOverloaded(res, failure.echoCredential ? credentialEcho(String(req.headers['x-api-key'])) : 'Overloaded'),
        });
      case 'mid-stream-disconnect':
        if (!stream) return sendHalfBodyThenDisconnect(res, messageBody(id, request, answer), disconnect);
        return sendStream(res, streamFrames(id, request, answer), reply.splitBytes, { afterEvents: failure.afterEvents, then: disconnect });
      case 'truncated-stream':
        if (!stream) return sendHalfBodyThenDisconnect(res, messageBody(id, request, answer), disconnect);
        return sendStream(res, streamFrames(id, request, answer), reply.splitBytes, { afterEvents: failure.afterEvents, then: () => res.end() });
    }
    if (reply.recorded) return sendRecorded(res, reply.recorded, stream);
    if (stream) return sendStream(res, streamFrames(id, request, answer), reply.splitBytes);
    sendJson(res, 200, messageBody(id, request, answer));
  }
}

function validateRoute(req: IncomingMessage): Rejection | undefined {
  if (req.method === 'POST' && req.url?.split('?')[0] === '/v1/messages') return undefined;
  return { status: 404, type: 'not_found_error', message: `${req.method ?? ''} ${req.url ?? ''} not found` };
}

function validateHeaders(req: IncomingMessage): Rejection | undefined {
  if (!req.headers['x-api-key']) return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  if (!req.headers['anthropic-version']) {
    return { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' };
  }
  return undefined;
}

function validateBody(body: unknown): Rejection | undefined {
  const message = bodyProblem(body);
  return message === undefined ? undefined : { status: 400, type: 'invalid_request_error', message };
}

function bodyProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'Request body must be a JSON object.';
  const extra = Object.keys(body).find((key) => !KNOWN_FIELDS.has(key));
  if (extra !== undefined) return `${extra}: Extra inputs are not permitted`;
  if (typeof body.model !== 'string') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens)) return 'max_tokens: Field required';
  if (typeof body.temperature === 'number' && (body.temperature < 0 || body.temperature > 1)) {
    return 'temperature: Input should be less than or equal to 1';
  }
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) {
    return 'system: Input should be a valid list';
  }
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
  const badTool = tools.findIndex(
    (tool) =>
      !isObject(tool) ||
      typeof tool.name !== 'string' ||
      (!(typeof tool.type === 'string' && SERVER_TOOL_TYPE.test(tool.type)) && (!isObject(tool.input_schema) || tool.input_schema.type !== 'object')),
  );
  if (badTool >= 0) return `tools.${badTool}.input_schema.type: Input should be 'object'`;
  return messagesProblem(body.messages) ?? thinkingProblem(body);
}

/**
 * As Anthropic does: with thinking on, the assistant turn whose tool_use the last message answers must
 * start with its signed thinking (or redacted_thinking) block, and max_tokens must exceed the budget.
 */
function thinkingProblem(body: Json): string | undefined {
  const thinking = body.thinking as { type?: string; budget_tokens?: number } | undefined;
  if (thinking?.type !== 'enabled') return undefined;
  if (!Number.isInteger(thinking.budget_tokens) || thinking.budget_tokens! < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if ((body.max_tokens as number) <= thinking.budget_tokens!) return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
  if (body.temperature !== undefined && body.temperature !== 1) return '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  const messages = body.messages as Json[];
  const last = messages.at(-1);
  const answersTool = last?.role === 'user' && blocksOf(last.content).some((block) => block.type === 'tool_result');
  if (!answersTool) return undefined;
  const i = messages.length - 2;
  const first = blocksOf(messages[i]?.content)[0];
  const signed = (first?.type === 'thinking' && typeof first.signature === 'string' && first.signature !== '') || (first?.type === 'redacted_thinking' && typeof first.data === 'string');
  if (signed) return undefined;
  return `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
}

function messagesProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  let openToolUses: string[] = [];
  for (const [i, message] of messages.entries()) {
    // Anthropic's own wording for a system message: Claude Code retries without it only on these words.
    if (isObject(message) && message.role === 'system') {
      return 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.';
    }
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    }
    if (i === 0 && message.role !== 'user') return 'messages: first message must use the "user" role';
    if (i > 0 && (messages[i - 1] as Json).role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
    const blocks = blocksOf(message.content);
    if (blocks.length === 0) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const problem = blockProblem(blocks, i, message.role, openToolUses);
    if (problem !== undefined) return problem;
    openToolUses = message.role === 'assistant' ? blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : [];
  }
  return undefined;
}

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function blockProblem(blocks: Json[], i: number, role: string, openToolUses: string[]): string | undefined {
  for (const [j, block] of blocks.entries()) {
    if (block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === '')) {
      return 'messages: text content blocks must be non-empty';
    }
    if (block.type === 'tool_use' && (role !== 'assistant' || typeof block.id !== 'string' || !TOOL_USE_ID.test(block.id))) {
      return `messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
    }
    if (block.type === 'tool_use' && !isObject(block.input)) {
      return `messages.${i}.content.${j}.tool_use.input: Input should be a valid dictionary`;
    }
    if (block.type === 'tool_result' && !openToolUses.includes(String(block.tool_use_id))) {
      return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  // Only results ahead of any other block count: the real API rejects results placed after text.
  const leadingResults = blocks.slice(0, firstIndexOrLength(blocks, (b) => b.type !== 'tool_result')).map((b) => String(b.tool_use_id));
  const unanswered = openToolUses.filter((id) => !leadingResults.includes(id));
  if (unanswered.length === 0) return undefined;
  return `messages.${i - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
}

/** `toolCallsWhenOffered`: the tool calls only on a turn that offers tools and does not answer a tool_use. */
function asToolTurn(reply: FakeReply, request: Json): FakeReply {
  if (!reply.toolCallsWhenOffered || !reply.toolCalls) return reply;
  const offered = Array.isArray(request.tools) && request.tools.length > 0;
  const last = (request.messages as Array<{ content?: unknown }> | undefined)?.at(-1)?.content;
  const answersTool = Array.isArray(last) && last.some((block) => (block as { type?: string }).type === 'tool_result');
  if (offered && !answersTool) return reply;
  const { toolCalls: _calls, ...text } = reply;
  return text;
}

function messageBody(id: string, request: Json, reply: FakeReply): Json {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const content = reply.toolCalls
    ? reply.toolCalls.map((call, i) => ({ type: 'tool_use', id: toolUseId(id, i), name: call.name, input: call.arguments }))
    : [{ type: 'text', text: reply.text ?? ANTHROPIC_FAKE_TEXT }];
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: reply.toolCalls ? 'tool_use' : reply.stopReason !== undefined ? 'stop_sequence' : 'end_turn',
    stop_sequence: reply.toolCalls ? null : (reply.stopReason ?? null),
    usage: {
      input_tokens: usage.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: usage.outputTokens,
      ...(reply.serverToolUse ? { server_tool_use: reply.serverToolUse } : {}),
    },
  };
}

/** The event sequence the real API sends, deltas cut into several pieces as a model would produce them. */
function streamFrames(id: string, request: Json, reply: FakeReply): SseFrame[] {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const message = messageBody(id, request, reply);
  const startUsage = { ...(message.usage as Json), output_tokens: 1 };
  const blocks = reply.toolCalls
    ? reply.toolCalls.map((call, i) => toolBlockFrames(toolUseId(id, i), call.name, JSON.stringify(call.arguments)))
    : [textBlockFrames(reply.text ?? ANTHROPIC_FAKE_TEXT)];
  const [firstBlockStart, ...blockFrames] = blocks.flatMap((frames, index) =>
    frames.map((frame) => ({ event: frame.event, data: { index, ...frame.data } })),
  );
  const frames: SseFrame[] = [
    { event: 'message_start', data: { message: { ...message, content: [], stop_reason: null, usage: startUsage } } },
    ...(firstBlockStart ? [firstBlockStart] : []),
    { event: 'ping', data: {} },
    ...blockFrames,
    {
      event: 'message_delta',
      data: {
        delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
        usage: { output_tokens: usage.outputTokens, ...(reply.serverToolUse ? { server_tool_use: reply.serverToolUse } : {}) },
      },
    },
    { event: 'message_stop', data: {} },
  ];
  return frames.map((frame) => ({ event: frame.event, data: { type: frame.event, ...frame.data } }));
}

function textBlockFrames(text: string): SseFrame[] {
  return [
    { event: 'content_block_start', data: { content_block: { type: 'text', text: '' } } },
    ...pieces(text, 4).map((piece) => ({ event: 'content_block_delta', data: { delta: { type: 'text_delta', text: piece } } })),
    { event: 'content_block_stop', data: {} },
  ];
}

/** Like the real API: an empty input at the start, an empty first fragment, then the JSON in pieces. */
function toolBlockFrames(id: string, name: string, json: string): SseFrame[] {
  return [
    { event: 'content_block_start', data: { content_block: { type: 'tool_use', id, name, input: {} } } },
    ...['', ...pieces(json, Math.ceil(json.length / 2))].map((partial) => ({
      event: 'content_block_delta',
      data: { delta: { type: 'input_json_delta', partial_json: partial } },
    })),
    { event: 'content_block_stop', data: {} },
  ];
}

async function sendStream(
  res: ServerResponse,
  frames: SseFrame[],
  splitBytes: number | undefined,
  cut?: { afterEvents: number; then: () => void },
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_fake' });
  const sent = cut === undefined ? frames : frames.slice(0, cut.afterEvents);
  for (const frame of sent) {
    const bytes = Buffer.from(`event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`);
    const size = splitBytes && splitBytes > 0 ? splitBytes : bytes.length;
    for (let offset = 0; offset < bytes.length; offset += size) {
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(bytes.subarray(offset, offset + size), () => resolve()));
      // Yield between writes, as a real network peer would, so a client can go away mid-stream.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  if (res.destroyed) return;
  if (cut === undefined) res.end();
  else cut.then();
}

function writeOverloaded(res: ServerResponse, message: string): void {
  const data = { type: 'error', error: { type: 'overloaded_error', message } };
  res.end(`event: error\ndata: ${JSON.stringify(data)}\n\n`);
}

function sendHalfBodyThenDisconnect(res: ServerResponse, body: Json, disconnect: () => void): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake' });
  res.write(text.slice(0, Math.floor(text.length / 2)), () => disconnect());
}

function sendRecorded(res: ServerResponse, answer: RecordedAnswer, stream: boolean): void {
  if (!stream) return sendJson(res, 200, answer.json as Json);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_fake' });
  res.end(Buffer.concat(recordedStream(answer)));
}

function sendStatusFailure(res: ServerResponse, status: number, retryAfterSeconds?: number): void {
  const [type, message] = ERROR_OF_STATUS[status] ?? [status >= 500 ? 'api_error' : 'invalid_request_error', `HTTP ${status}`];
  const retryAfter = retryAfterSeconds ?? (status === 429 ? 1 : undefined);
  sendError(res, status, type, message, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  res.setHeader('x-should-retry', String(status === 408 || status === 409 || status === 429 || status >= 500));
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: 'req_fake' });
}

function sendJson(res: ServerResponse, status: number, body: Json): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
  res.end(JSON.stringify(body));
}

function toolUseId(messageId: string, index: number): string {
  return `toolu_${messageId.slice('msg_'.length)}_${index}`;
}

/** Cuts by code points so every piece is a valid string; the byte splitting happens on the wire. */
function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += Math.max(1, size)) out.push(chars.slice(i, i + Math.max(1, size)).join(''));
  return out;
}

function firstIndexOrLength<T>(items: T[], predicate: (item: T) => boolean): number {
  const index = items.findIndex(predicate);
  return index === -1 ? items.length : index;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
