/**
 * A fake Gemini Developer API on 127.0.0.1: `models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`, `:batchEmbedContents` (embedding-answers.ts), Google's error bodies, CRLF SSE framing, and the request checks
 * the real API makes that catch translation bugs (roles, functionResponse shape, Gemini 3 thought
 * signatures on function-call history).
 */
import { geminiBatchEmbedAnswer } from './embedding-answers.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { credentialEcho, type FakeFailure, type FakeProvider, type FakeReply, type RecordedRequest } from './fake-provider.js';
import { recordedStream } from './recorded-answer.js';

const SKIP_SIGNATURE = 'skip_thought_signature_validator';
const DEFAULT_TEXT = 'Hello from gemini-fake: héllo 👋 世界';
const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents)$/;

type Json = Record<string, unknown>;

interface ErrorReply {
  status: number;
  contentType: string;
  body: string;
}

export async function startGeminiFake(): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const issuedSignatures = new Set<string>();
  let queued: FakeFailure[] = [];
  let always: FakeFailure | undefined;
  let reply: FakeReply = {};
  let aborted = 0;
  let closing = false;

  const server = createServer((req, res) => {
    let destroyedOnPurpose = false;
    res.on('close', () => {
      if (!res.writableFinished && !destroyedOnPurpose && !closing) aborted += 1;
    });
    const markDestroyed = () => (destroyedOnPurpose = true);
    void handle(req, res, markDestroyed).catch(() => {
      markDestroyed();
      res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, markDestroyed: () => void): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body });
    const failure = always ?? queued.shift();
    const current = reply;
    await delay(current.latencyMs ?? 0);

    if (failure?.kind === 'hang') return;
    const credential = String(req.headers['x-goog-api-key'] ?? '');
    if (failure?.kind === 'status') return sendError(res, googleError(failure.status, failure.retryAfterSeconds, failure.echoCredential ? credentialEcho(credential) : undefined));
    if (failure?.kind === 'out-of-credit') return sendError(res, dailyQuotaError());
    if (failure?.kind === 'slow-first-byte') await delay(failure.delayMs);

    const route = ROUTE.exec(url.pathname);
    if (req.method !== 'POST' || !route) return sendError(res, googleError(404));
    const apiKey = req.headers['x-goog-api-key'];
    if (typeof apiKey !== 'string' || apiKey === '') return sendError(res, googleError(403));
    if (route[2] === 'batchEmbedContents') {
      const answer = geminiBatchEmbedAnswer(route[1] ?? '', body);
      return answer.ok ? sendJson(res, 200, answer.body) : sendError(res, googleError(400, undefined, answer.message));
    }
    const invalid = validateRequest(body, issuedSignatures);
    if (invalid !== undefined) return sendError(res, googleError(400, undefined, invalid));

    if (current.recorded) {
      // A recorded answer's signatures count as issued, so a replayed history that carries them back passes.
      for (const signature of JSON.stringify(current.recorded).match(/"thoughtSignature":"[^"]+"/g) ?? []) issuedSignatures.add(signature.slice(20, -1));
      if (route[2] === 'generateContent') return sendJson(res, 200, current.recorded.json);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      return void res.end(Buffer.concat(recordedStream(current.recorded, '\r\n')));
    }
    const events = replyEvents(asToolTurn(current, body), route[1] ?? '', issuedSignatures, includesThoughts(body));
    if (route[2] === 'generateContent') return sendJson(res, 200, mergeEvents(events));
    // Without alt=sse Gemini streams one JSON array instead of SSE.
    if (url.searchParams.get('alt') !== 'sse') return sendJson(res, 200, events);
    await streamEvents(res, events, current.splitBytes, failure, markDestroyed, credential);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1beta`,
    requests,
    get abortedRequests() {
      return aborted;
    },
    failNext(failure, times = 1) {
      for (let i = 0; i < times; i += 1) queued.push(failure);
    },
    failAlways(failure) {
      always = failure;
    },
    setReply(next) {
      reply = next;
    },
    /** Also zeroes `abortedRequests`, so each test counts only its own aborts. */
    reset() {
      queued = [];
      always = undefined;
      reply = {};
      aborted = 0;
      requests.length = 0;
    },
    async close() {
      closing = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One GenerateContentResponse per SSE event, as Gemini streams them; the last carries finishReason and usage. */
/** `toolCallsWhenOffered`: the function calls only on a turn that offers tools and does not answer a call. */
function asToolTurn(reply: FakeReply, body: unknown): FakeReply {
  if (!reply.toolCallsWhenOffered || !reply.toolCalls) return reply;
  const request = (body ?? {}) as { tools?: unknown[]; contents?: Array<{ parts?: Array<Record<string, unknown>> }> };
  const offered = Array.isArray(request.tools) && request.tools.length > 0;
  const answersCall = request.contents?.at(-1)?.parts?.some((part) => 'functionResponse' in part) ?? false;
  if (offered && !answersCall) return reply;
  const { toolCalls: _calls, ...text } = reply;
  return text;
}

/** Gemini shows thought summaries only when asked to. */
function includesThoughts(body: unknown): boolean {
  const config = isObject(body) && isObject(body.generationConfig) ? body.generationConfig.thinkingConfig : undefined;
  return isObject(config) && config.includeThoughts === true;
}

function replyEvents(reply: FakeReply, model: string, issuedSignatures: Set<string>, thoughts = false): Json[] {
  const responseId = `fake${Math.random().toString(36).slice(2, 14)}`;
  const promptTokens = reply.usage?.inputTokens ?? 8;
  const outputTokens = reply.usage?.outputTokens ?? 12;
  const finalUsage = { promptTokenCount: promptTokens, candidatesTokenCount: outputTokens, totalTokenCount: promptTokens + outputTokens };
  const runningUsage = { promptTokenCount: promptTokens, totalTokenCount: promptTokens };
  const slices = reply.toolCalls ? [functionCallParts(reply.toolCalls, issuedSignatures)] : textSlices(reply.text ?? DEFAULT_TEXT);
  if (thoughts && reply.thoughts !== undefined) slices.unshift([{ text: reply.thoughts, thought: true }]);
  return slices.map((parts, index) => {
    const last = index === slices.length - 1;
    const candidate: Json = { content: { parts, role: 'model' }, index: 0 };
    if (last) candidate.finishReason = 'STOP';
    return { candidates: [candidate], usageMetadata: last ? finalUsage : runningUsage, modelVersion: model, responseId };
  });
}

/** Text split into up to three slices on code-point boundaries (each event is valid JSON on its own). */
function textSlices(text: string): Json[][] {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / 3));
  const slices: Json[][] = [];
  for (let start = 0; start < chars.length; start += size) slices.push([{ text: chars.slice(start, start + size).join('') }]);
  return slices.length === 0 ? [[{ text: '' }]] : slices;
}

/** Like Gemini 3: only the first functionCall part of a step carries a thought signature. */
function functionCallParts(calls: NonNullable<FakeReply['toolCalls']>, issuedSignatures: Set<string>): Json[] {
  return calls.map((call, index) => {
    const part: Json = { functionCall: { name: call.name, args: call.arguments } };
    if (index === 0) {
      const signature = Buffer.from(`fake-signature-${issuedSignatures.size + 1}-${call.name}`).toString('base64');
      issuedSignatures.add(signature);
      part.thoughtSignature = signature;
    }
    return part;
  });
}

function mergeEvents(events: Json[]): Json {
  const last = events[events.length - 1] ?? {};
  const parts = events.flatMap((event) => ((event.candidates as Json[])[0]?.content as { parts: Json[] }).parts);
  const merged = mergeTextParts(parts);
  return { ...last, candidates: [{ content: { parts: merged, role: 'model' }, finishReason: 'STOP', index: 0 }] };
}

/** The answer's text parts joined into one, after the thought parts. */
function mergeTextParts(parts: Json[]): Json[] {
  const thoughts = parts.filter((part) => part.thought === true);
  const answer = parts.filter((part) => part.thought !== true);
  if (!answer.every((part) => typeof part.text === 'string')) return parts;
  return [...thoughts, { text: answer.map((part) => part.text).join('') }];
}

async function streamEvents(
  res: ServerResponse,
  events: Json[],
  splitBytes: number | undefined,
  failure: FakeFailure | undefined,
  markDestroyed: () => void,
  credential: string,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const failAfter =
    failure?.kind === 'mid-stream-error' || failure?.kind === 'mid-stream-disconnect' || failure?.kind === 'truncated-stream' ? failure.afterEvents : undefined;
  const sent = failAfter === undefined ? events : events.slice(0, failAfter);
  for (const event of sent) {
    if (res.destroyed) return;
    // Gemini frames its SSE events with CRLF line endings.
    await writeSplit(res, Buffer.from(`data: ${JSON.stringify(event)}\r\n\r\n`), splitBytes);
  }
  if (failure?.kind === 'mid-stream-disconnect') {
    markDestroyed();
    res.socket?.destroy();
    return;
  }
  if (failure?.kind === 'mid-stream-error') {
    // quirk(gemini): errors after the 200 arrive as a bare, pretty-printed JSON object, not a data line.
    const error = JSON.parse(googleError(503, undefined, failure.echoCredential ? credentialEcho(credential) : undefined).body) as Json;
    await writeSplit(res, Buffer.from(`${JSON.stringify(error, null, 2)}\r\n\r\n`), splitBytes);
  }
  res.end();
}

async function writeSplit(res: ServerResponse, bytes: Buffer, splitBytes: number | undefined): Promise<void> {
  const size = splitBytes !== undefined && splitBytes > 0 ? splitBytes : bytes.length;
  for (let offset = 0; offset < bytes.length; offset += size) {
    if (res.destroyed) return;
    res.write(bytes.subarray(offset, offset + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body, null, 2));
}

function sendError(res: ServerResponse, error: ErrorReply): void {
  res.writeHead(error.status, { 'content-type': error.contentType });
  res.end(error.body);
}

const GOOGLE_502_PAGE = `<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <title>Error 502 (Server Error)!!1</title>
  <p><b>502.</b> <ins>That’s an error.</ins>
  <p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds.  <ins>That’s all we know.</ins>
`;

/**
 * What the API answers once a project's per-day quota is used up: the same 429 RESOURCE_EXHAUSTED as a
 * per-minute limit, told apart only by the QuotaFailure's per-day quota id. It carries a RetryInfo all
 * the same, though waiting seconds does not help.
 */
function dailyQuotaError(): ErrorReply {
  const error = {
    code: 429,
    message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
    status: 'RESOURCE_EXHAUSTED',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
            quotaDimensions: { location: 'global', model: 'gemini-2.5-pro' },
            quotaValue: '25',
          },
        ],
      },
      { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '23s' },
    ],
  };
  return { status: 429, contentType: 'application/json; charset=UTF-8', body: JSON.stringify({ error }, null, 2) };
}

/** Google's error bodies as the Generative Language API sends them (`google.rpc.Status` under `error`). */
function googleError(status: number, retryAfterSeconds?: number, message?: string): ErrorReply {
  if (status === 502) return { status, contentType: 'text/html; charset=UTF-8', body: GOOGLE_502_PAGE };
  const [rpcStatus, defaultMessage, details] = errorDetails(status, retryAfterSeconds);
  const error: Json = { code: status, message: message ?? defaultMessage, status: rpcStatus };
  if (details.length > 0) error.details = details;
  return { status, contentType: 'application/json; charset=UTF-8', body: JSON.stringify({ error }, null, 2) };
}

function errorDetails(status: number, retryAfterSeconds = 30): [string, string, Json[]] {
  switch (status) {
    case 400:
      return ['INVALID_ARGUMENT', 'Request contains an invalid argument.', []];
    case 401:
      return [
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED', domain: 'googleapis.com' }],
      ];
    case 403:
      // What the real API answers when no API key is sent at all.
      return [
        'PERMISSION_DENIED',
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        [],
      ];
    case 404:
      return ['NOT_FOUND', 'models/unknown is not found for API version v1beta, or is not supported for generateContent.', []];
    case 429:
      return [
        'RESOURCE_EXHAUSTED',
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
        [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }],
          },
          { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterSeconds}s` },
        ],
      ];
    case 500:
      return ['INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting', []];
    case 503:
      return ['UNAVAILABLE', 'The model is overloaded. Please try again later.', []];
    case 504:
      return ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.', []];
    default:
      return ['UNKNOWN', `Fake Gemini error ${status}.`, []];
  }
}

/** The checks the real API makes that a broken translation would trip; returns Google's message or undefined. */
function validateRequest(body: unknown, issuedSignatures: ReadonlySet<string>): string | undefined {
  if (!isObject(body)) return 'Invalid JSON payload received.';
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified\n';
  for (const [i, content] of contents.entries()) {
    if (!isObject(content) || (content.role !== 'user' && content.role !== 'model')) return 'Please use a valid role: user, model.';
    if (!Array.isArray(content.parts) || content.parts.length === 0) return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`;
    for (const [j, part] of content.parts.entries()) {
      const problem = validatePart(part, `contents[${i}].parts[${j}]`, issuedSignatures);
      if (problem !== undefined) return problem;
    }
  }
  return validateCurrentTurnSignatures(contents as Json[]);
}

function validatePart(part: unknown, at: string, issuedSignatures: ReadonlySet<string>): string | undefined {
  if (!isObject(part)) return `Invalid value at '${at}'.`;
  if (part.text === '') return 'Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.';
  const response = part.functionResponse;
  if (response !== undefined) {
    if (!isObject(response) || typeof response.name !== 'string' || response.name === '') return `* GenerateContentRequest.${at}.function_response.name: Name cannot be empty.\n`;
    if (!isObject(response.response)) return `Invalid value at '${at}.function_response.response' (type.googleapis.com/google.protobuf.Struct), expected an object.`;
  }
  const call = part.functionCall;
  if (call !== undefined && (!isObject(call) || typeof call.name !== 'string' || (call.args !== undefined && !isObject(call.args)))) {
    return `Invalid value at '${at}.function_call'.`;
  }
  const signature = part.thoughtSignature;
  if (signature !== undefined && signature !== SKIP_SIGNATURE && !issuedSignatures.has(String(signature))) return 'Corrupted thought signature.';
  return undefined;
}

/**
 * Gemini 3's rule: in the current turn (everything after the last user content with ordinary parts),
 * the first functionCall part of every model step must carry its thought signature.
 */
function validateCurrentTurnSignatures(contents: Json[]): string | undefined {
  const isTurnStart = (content: Json) => content.role === 'user' && (content.parts as Json[]).some((part) => part.functionResponse === undefined);
  const start = contents.findLastIndex(isTurnStart);
  for (let i = start + 1; i < contents.length; i += 1) {
    const content = contents[i] as Json;
    const firstCall = (content.parts as Json[]).find((part) => part.functionCall !== undefined);
    if (content.role !== 'model' || firstCall === undefined || firstCall.thoughtSignature !== undefined) continue;
    const name = (firstCall.functionCall as Json).name as string;
    return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
  }
  return undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
