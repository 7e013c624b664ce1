/**
 * Tool-call signatures (Gemini's thought signatures) kept for clients that rebuild their messages from
 * `content` and `tool_calls`, keeping only each call's `id`, `type` and `function` (LangChain's
 * ChatOpenAI, the AI SDK's OpenAI-compatible provider, most hand-written loops). The call id is the one
 * thing every client sends back, so the signature is kept under it in the shared store, per account and
 * for a bounded time (SignatureMemory), and put back when a call comes back unsigned: the real
 * signature reaches the upstream on the next turn on any instance. An adapter without the capability
 * (`toolCallSignatures`) costs nothing here.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../formats/openai-chat.js';
import type { IssuedSignature, ProviderAdapter, ToolCallSignatureCapability } from '../providers/adapter.js';
import type { Candidate } from './attempt.js';
import type { CommittedStream } from './committed-stream.js';

/** Where signatures are kept: one account's rows are never read for another (runtime/ backs it by the store). */
export interface SignatureMemory {
  remember(accountId: string, signatures: readonly IssuedSignature[]): Promise<void>;
  /** The account's kept signatures among these call ids; empty when none (or the store cannot be read). */
  recall(accountId: string, callIds: readonly string[]): Promise<Map<string, string>>;
}

/** Calls looked up per request: a conversation's recent steps; older history only ever needs the dummy. */
const MAX_LOOKUPS = 64;

export interface Signing {
  /** The request with kept signatures put back on the calls that came back without theirs. */
  restore(chat: ChatRequest): Promise<ChatRequest>;
  /** Keeps an answer's signatures before the answer is released, so the client's next turn finds them. */
  keep(completion: ChatCompletion): Promise<void>;
  /** The same for a stream: each chunk that issues a signature waits for it to be kept. */
  keepStreamed(stream: CommittedStream<ChatCompletionChunk>): Promise<CommittedStream<ChatCompletionChunk>>;
}

/** The attempt's signing, or undefined when its adapter signs nothing, no memory is wired or the account is unknown. */
export function signingFor(memory: SignatureMemory | undefined, adapter: ProviderAdapter, candidate: Candidate): Signing | undefined {
  const capability = adapter.toolCallSignatures;
  const accountId = candidate.accountId;
  if (memory === undefined || capability === undefined || accountId === undefined) return undefined;
  return signing(memory, capability, accountId);
}

function signing(memory: SignatureMemory, capability: ToolCallSignatureCapability, accountId: string): Signing {
  const keepDetails = async (issued: readonly IssuedSignature[]) => {
    if (issued.length > 0) await memory.remember(accountId, issued);
  };
  return {
    async restore(chat) {
      const unsigned = capability.unsignedCallIds(chat, MAX_LOOKUPS);
      if (unsigned.length === 0) return chat;
      return capability.withSignatures(chat, await memory.recall(accountId, unsigned));
    },
    keep: (completion) => keepDetails(completion.choices.flatMap((choice) => capability.issuedIn(choice.message.reasoning_details))),
    async keepStreamed(stream) {
      const issuedBy = (chunk: ChatCompletionChunk) => chunk.choices.flatMap((choice) => capability.issuedIn(choice.delta.reasoning_details));
      await keepDetails(stream.head.flatMap(issuedBy));
      const tail = stream.tail;
      return {
        head: stream.head,
        tail: {
          async next() {
            const next = await tail.next();
            if (!next.done) await keepDetails(issuedBy(next.value));
            return next;
          },
          return: async (value?: unknown) => (await tail.return?.(value)) ?? { done: true, value: undefined },
        },
      };
    },
  };
}
