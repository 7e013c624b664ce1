/**
 * The playground's request: a streamed chat completion sent over HTTP to this router's own listener
 * (the local address and port the browser's request came in on), so it passes through the whole /v1
 * pipeline like any client's and the app never reaches into the pipeline's internals. undici directly,
 * not upstream/'s client: that one is the pool for providers, and this call is to ourselves.
 * The answer comes back as the router's own SSE, parsed by the one SSE decoder.
 */
import { request } from 'undici';
import { createSseDecoder } from '../../upstream/sse-decoder.js';
import { formatNanoUsd, usdToNano } from '../../usage/nano-usd.js';

/** The response headers the playground shows (what a client reads for limits and routing). */
export const SHOWN_HEADERS = [
  'x-request-id',
  'x-router-upstream',
  'x-router-retry-count',
  'x-quota-limit',
  'x-quota-used',
  'x-quota-remaining',
  'x-quota-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
] as const;

export type PlaygroundEvent =
  | { type: 'headers'; status: number; headers: Record<string, string> }
  | { type: 'delta'; text: string }
  | { type: 'done'; model: string | null; usage: { prompt: number; completion: number; total: number } | null; cost: string | null }
  | { type: 'error'; status: number; code: string; message: string };

export interface LoopbackTarget {
  /** The address and port of this server's listener, as the browser's connection reached it. */
  address: string;
  port: number;
}

const USER_AGENT = 'llm-router-playground/1.0';
/** A first answer, not an essay: the playground caps the output so a test costs little (lower still on a plan capped lower). */
export const PLAYGROUND_MAX_TOKENS = 400;

export interface PlaygroundInput {
  profile: string;
  /** The conversation so far and the new message last (chat-turns.ts). */
  messages: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>;
  /** At most PLAYGROUND_MAX_TOKENS and the plan's maxOutputTokens. */
  maxTokens: number;
  /** Null: the model's own default. */
  temperature?: number | null;
}

export async function* loopbackChat(target: LoopbackTarget, key: string, input: PlaygroundInput, signal: AbortSignal): AsyncGenerator<PlaygroundEvent> {
  const host = target.address.includes(':') ? `[${target.address}]` : target.address;
  const response = await request(`http://${host}:${target.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': USER_AGENT, accept: 'text/event-stream' },
    body: JSON.stringify({
      model: input.profile,
      messages: input.messages,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: input.maxTokens,
      ...(input.temperature === null || input.temperature === undefined ? {} : { temperature: input.temperature }),
    }),
    signal,
  });
  const headers: Record<string, string> = {};
  for (const name of SHOWN_HEADERS) {
    const value = response.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  yield { type: 'headers', status: response.statusCode, headers };
  if (response.statusCode !== 200) {
    // The router's own error body (api.md#errors), never a provider's.
    const body = (await response.body.json().catch(() => null)) as { error?: { code?: unknown; message?: unknown } } | null;
    yield { type: 'error', status: response.statusCode, code: String(body?.error?.code ?? 'error'), message: String(body?.error?.message ?? `The router answered ${response.statusCode}.`) };
    return;
  }
  const decoder = createSseDecoder();
  let model: string | null = null;
  let usage: { prompt: number; completion: number; total: number } | null = null;
  let cost: string | null = null;
  const handle = function* (data: string): Generator<PlaygroundEvent> {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as ChatChunk;
    if (chunk.error) {
      yield { type: 'error', status: 200, code: String(chunk.error.code ?? 'stream_error'), message: String(chunk.error.message ?? 'The stream ended with an error.') };
      return;
    }
    model = chunk.model ?? model;
    const text = chunk.choices?.[0]?.delta?.content;
    if (typeof text === 'string' && text !== '') yield { type: 'delta', text };
    if (chunk.usage) {
      usage = { prompt: chunk.usage.prompt_tokens, completion: chunk.usage.completion_tokens, total: chunk.usage.total_tokens };
      // usage.cost is USD as a JSON number; shown as the exact decimal the ledger records (nano-USD).
      if (typeof chunk.usage.cost === 'number' && Number.isFinite(chunk.usage.cost) && chunk.usage.cost >= 0) cost = formatNanoUsd(usdToNano(chunk.usage.cost));
    }
  };
  for await (const bytes of response.body) {
    for (const event of decoder.push(bytes as Uint8Array)) yield* handle(event.data);
  }
  for (const event of decoder.end()) yield* handle(event.data);
  yield { type: 'done', model, usage, cost };
}

interface ChatChunk {
  model?: string;
  choices?: Array<{ delta?: { content?: string | null } }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost?: unknown } | null;
  error?: { code?: unknown; message?: unknown };
}
