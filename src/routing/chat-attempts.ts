/**
 * One attempt at a chat completion against one candidate: build the provider request, send it, and
 * read the answer back into the internal (chat) shape. Failures become AttemptFailed so the failover
 * loop can decide. For streams, the attempt returns at the commit point: once the upstream produced
 * output worth sending (content, a tool call, a finish or usage), never on a bare role chunk, so an
 * upstream that fails right after opening its stream is still failed over.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../formats/openai-chat.js';
import { UpstreamStreamError, type AdapterContext, type ProviderAdapter, type UpstreamRequest } from '../providers/adapter.js';
import type { AdapterRegistry } from '../providers/registry.js';
import { createSseDecoder } from '../upstream/sse-decoder.js';
import type { SseEvent } from '../upstream/sse-event.js';
import { UpstreamTransportError, type UpstreamClient, type UpstreamResponse } from '../upstream/upstream-client.js';
import { AttemptFailed, type Candidate } from './failover.js';

export interface CommittedStream<T> {
  /** Output produced before the commit point, to send first. */
  head: T[];
  /** The rest of the upstream stream; throws UpstreamStreamError or UpstreamTransportError mid-stream. */
  tail: AsyncIterator<T>;
}

export interface AttemptDeps {
  adapters: AdapterRegistry;
  client: UpstreamClient;
}

export function adapterContext(candidate: Candidate, stream: boolean): AdapterContext {
  return { provider: candidate.provider, upstreamModel: candidate.target.model, credential: candidate.credential, stream };
}

export async function sendOrFail(
  deps: AttemptDeps,
  adapter: ProviderAdapter,
  candidate: Candidate,
  request: UpstreamRequest,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const response = await deps.client.send(candidate.provider, request, signal);
  if (response.status >= 200 && response.status < 300) return response;
  const text = await response.text().catch(() => '');
  throw new AttemptFailed(adapter.parseError(response.status, text, response.headers));
}

export async function completeChatAttempt(deps: AttemptDeps, candidate: Candidate, chat: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
  const adapter = deps.adapters[candidate.provider.format];
  const ctx = adapterContext(candidate, false);
  const response = await sendOrFail(deps, adapter, candidate, adapter.buildChatRequest(chat, ctx), signal);
  const text = await response.text();
  return adapter.parseChatResponse(parseJsonBody(text), ctx);
}

export async function streamChatAttempt(deps: AttemptDeps, candidate: Candidate, chat: ChatRequest, signal: AbortSignal): Promise<CommittedStream<ChatCompletionChunk>> {
  const adapter = deps.adapters[candidate.provider.format];
  const ctx = adapterContext(candidate, true);
  const response = await sendOrFail(deps, adapter, candidate, adapter.buildChatRequest(chat, ctx), signal);
  const translator = adapter.createChatStreamTranslator(ctx);
  const chunks = translateStream(response.body, (event) => translator.onEvent(event), () => translator.onEnd());
  return commitWhen(chunks, isCommittingChunk);
}

/** bytes → SSE events → translated items, in that order, in one place. */
export async function* translateStream<T>(
  body: AsyncIterable<Uint8Array>,
  onEvent: (event: SseEvent) => T[],
  onEnd: () => T[],
): AsyncGenerator<T> {
  const decoder = createSseDecoder();
  for await (const bytes of body) {
    for (const event of decoder.push(bytes)) yield* onEvent(event);
  }
  for (const event of decoder.end()) yield* onEvent(event);
  yield* onEnd();
}

/** Pull items until one satisfies `commits`; failures before that are attempt failures. */
export async function commitWhen<T>(items: AsyncGenerator<T>, commits: (item: T) => boolean): Promise<CommittedStream<T>> {
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
