/**
 * One attempt at a chat completion against one candidate: build the provider request, send it, and
 * read the answer back into the internal (chat) shape. Failures become AttemptFailed so the failover
 * loop can decide. For streams, the attempt returns at the commit point: once the upstream produced
 * output worth sending (content, a tool call, a finish or usage), never on a bare role chunk, so an
 * upstream that fails right after opening its stream is still failed over.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../formats/openai-chat.js';
import type { AdapterContext, AdapterRegistry, ProviderAdapter } from '../providers/adapter.js';
import { UpstreamStreamError } from '../upstream/upstream-failure.js';
import type { UpstreamRequest } from '../upstream/upstream-request.js';
import { sendInAttemptSpan } from './attempt-span.js';
import { createBoundedCache } from '../core/bounded-cache.js';
import { secretRedactor } from '../core/redact-secrets.js';
import { createSseDecoder } from '../upstream/sse-decoder.js';
import { translateStream } from './translate-stream.js';
import type { SseEvent } from '../upstream/sse-event.js';
import { UpstreamTransportError, type UpstreamClient, type UpstreamResponse } from '../upstream/upstream-client.js';
import { AttemptFailed, type Candidate } from './failover.js';
import { withinCandidateLimit, type OutputLimits } from './output-limits.js';
import type { CommittedStream } from './committed-stream.js';
import { signingFor, type SignatureMemory } from './tool-call-signatures.js';

export type { CommittedStream };

export interface AttemptDeps {
  adapters: AdapterRegistry;
  client: UpstreamClient;
  /** Every attempt's output cap is lowered to its model's published limit (output-limits.ts). */
  outputLimits: OutputLimits;
  /** Where tool-call signatures are kept for clients that drop them (absent: only what the client sends back counts). */
  signatures?: SignatureMemory;
}

/** The adapter for the candidate's provider: the only way routing reaches an adapter, by the provider's format, never by a format's name. */
export function adapterOf(deps: AttemptDeps, candidate: Candidate): ProviderAdapter {
  return deps.adapters[candidate.provider.format];
}

/** `limits`: where the served model's catalog entry comes from, for adapters that read it (thinking budgets). */
export function adapterContext(candidate: Candidate, stream: boolean, limits?: OutputLimits): AdapterContext {
  const model = limits?.entry(candidate.provider.id, candidate.target.model);
  return { provider: candidate.provider, upstreamModel: candidate.target.model, credential: candidate.credential, stream, ...(model ? { model } : {}) };
}

/**
 * A 2xx answer as the attempt may read it. Everything read from the upstream passes through here, with
 * the credential the attempt sent redacted (raw, URL-encoded, JSON-escaped), so a host that quotes it
 * can never get it into an error body, a passed-through event or a log line.
 */
export interface UpstreamReply {
  /** The whole body as text (non-stream answers). */
  text(): Promise<string>;
  /** The body as SSE events, decoded in the one place that decodes SSE: the events of each network read together. */
  eventBatches(): AsyncGenerator<SseEvent[]>;
}

/**
 * One redactor per credential, made once: building one (its URL-encoded and JSON-escaped forms, sorted)
 * cost 1.2% of the router's busy time when done per attempt. The credentials are the ones
 * accounts/provider-credentials.ts already keeps decrypted for as long; bounded like its cache.
 */
const redactors = createBoundedCache<string, (text: string) => string>({ entries: 10_000 });
function redactorFor(credential: string): (text: string) => string {
  let redact = redactors.get(credential);
  if (!redact) redactors.set(credential, (redact = secretRedactor([credential])));
  return redact;
}

export async function sendOrFail(
  deps: AttemptDeps,
  adapter: ProviderAdapter,
  candidate: Candidate,
  request: UpstreamRequest,
  signal: AbortSignal,
): Promise<UpstreamReply> {
  const response = await (candidate.span ? sendInAttemptSpan(deps.client, candidate.span, candidate.provider, request, signal) : deps.client.send(candidate.provider, request, signal));
  const reply = redactedReply(response, redactorFor(candidate.credential));
  if (response.status >= 200 && response.status < 300) return reply;
  const text = await reply.text().catch(() => '');
  throw new AttemptFailed(adapter.parseError(response.status, text, response.headers));
}

function redactedReply(response: UpstreamResponse, redact: (text: string) => string): UpstreamReply {
  return {
    text: async () => redact(await response.text()),
    async *eventBatches() {
      const decoder = createSseDecoder();
      // In place: each event is a fresh object of the decoder's, seen by no one before this.
      const clean = (events: SseEvent[]): SseEvent[] => {
        for (const event of events) {
          event.data = redact(event.data);
          if (event.raw !== undefined) event.raw = redact(event.raw);
        }
        return events;
      };
      for await (const bytes of response.body) {
        const events = decoder.push(bytes);
        if (events.length > 0) yield clean(events);
      }
      const rest = decoder.end();
      if (rest.length > 0) yield clean(rest);
    },
  };
}

export async function completeChatAttempt(deps: AttemptDeps, candidate: Candidate, chat: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
  const adapter = adapterOf(deps, candidate);
  const signing = signingFor(deps.signatures, adapter, candidate);
  const ctx = adapterContext(candidate, false, deps.outputLimits);
  const asked = signing ? await signing.restore(chat) : chat;
  const request = adapter.buildChatRequest(withinCandidateLimit(deps.outputLimits, candidate, asked, 'chat'), ctx);
  const reply = await sendOrFail(deps, adapter, candidate, request, signal);
  const completion = adapter.parseChatResponse(parseJsonBody(await reply.text()), ctx);
  await signing?.keep(completion);
  return completion;
}

export async function streamChatAttempt(deps: AttemptDeps, candidate: Candidate, chat: ChatRequest, signal: AbortSignal): Promise<CommittedStream<ChatCompletionChunk>> {
  const adapter = adapterOf(deps, candidate);
  const signing = signingFor(deps.signatures, adapter, candidate);
  const ctx = adapterContext(candidate, true, deps.outputLimits);
  const asked = signing ? await signing.restore(chat) : chat;
  const request = adapter.buildChatRequest(withinCandidateLimit(deps.outputLimits, candidate, asked, 'chat'), ctx);
  const reply = await sendOrFail(deps, adapter, candidate, request, signal);
  const translator = adapter.createChatStreamTranslator(ctx);
  const chunks = translateStream(reply.eventBatches(), (event) => translator.onEvent(event), () => translator.onEnd());
  const committed = await commitWhen(chunks, isCommittingChunk);
  return signing ? signing.keepStreamed(committed) : committed;
}

/** Pull items until one satisfies `commits`; failures before that are attempt failures. */
export async function commitWhen<T>(items: AsyncIterator<T>, commits: (item: T) => boolean): Promise<CommittedStream<T>> {
  const head: T[] = [];
  try {
    for (;;) {
      const next = await items.next();
      if (next.done) break;
      head.push(next.value);
      if (commits(next.value)) break;
    }
  } catch (error) {
    if (error instanceof UpstreamStreamError) throw new AttemptFailed(error.failure);
    if (error instanceof UpstreamTransportError) throw AttemptFailed.fromTransport(error);
    throw error;
  }
  return { head, tail: items };
}

function isCommittingChunk(chunk: ChatCompletionChunk): boolean {
  if (chunk.usage) return true;
  return chunk.choices.some((choice) => {
    const { delta } = choice;
    return choice.finish_reason !== null || Boolean(delta.content) || Boolean(delta.tool_calls?.length) || Boolean(delta.reasoning_content) || Boolean(delta.refusal);
  });
}

export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AttemptFailed({ status: 502, type: 'upstream_error', code: 'invalid_upstream_response', message: 'The upstream answered with a body that is not JSON.' });
  }
}
