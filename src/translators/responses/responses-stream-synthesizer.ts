/**
 * Chat completion chunks in → Responses stream events out, one object per request (wire-formats.md
 * §2.3, §6.3). Items open lazily as their first delta arrives and take the next output_index; all open
 * items close in output_index order at finish(), followed by exactly one terminal event. Clients (Codex
 * above all) retry the whole turn when a stream ends without response.completed or response.failed, so
 * every path ends in one, and nothing is emitted after it.
 */
import type { ChatChunkDelta, ChatCompletionChunk, ChatFinishReason, ChatToolCallDelta, ChatUsage } from '../../formats/openai-chat.js';
import type { ResponsesStreamEvent } from '../../formats/openai-responses.js';
import { buildResponseObject, itemStatusFor, statusFromFinishReason, type ResponseContext } from './build-response-object.js';
import { customToolNames } from './custom-tool-bridge.js';
import type { StreamEventBody, StreamItem } from './stream-item.js';
import { StreamMessageItem } from './stream-message-item.js';
import { StreamReasoningItem } from './stream-reasoning-item.js';
import { StreamToolCallItem } from './stream-tool-call-item.js';

export interface ResponsesStreamFailure {
  /** e.g. server_error, rate_limit_exceeded, context_length_exceeded (Codex reacts to the code). */
  code: string;
  message: string;
  /** For rate_limit_exceeded: Codex only waits when the message says "try again in Ns". */
  retryAfterSeconds?: number;
}

export interface ResponsesStreamSynthesizer {
  /** response.created then response.in_progress. Later calls emit them first if start() was skipped. */
  start(): ResponsesStreamEvent[];
  onChunk(chunk: ChatCompletionChunk): ResponsesStreamEvent[];
  /** The upstream ended: closing events of every open item, then response.completed or response.incomplete. */
  finish(): ResponsesStreamEvent[];
  /** The upstream failed after the stream began: response.failed, leaving partial items unclosed. */
  fail(failure: ResponsesStreamFailure): ResponsesStreamEvent[];
}

/** A chat tool call being assembled; it opens as an item once its name is known. */
interface PendingCall {
  chatIndex: number;
  callId: string;
  name: string;
  bufferedArguments: string;
  item?: StreamToolCallItem;
}

export function createResponsesStreamSynthesizer(ctx: ResponseContext): ResponsesStreamSynthesizer {
  const customTools = customToolNames(ctx.request);
  const items: StreamItem[] = [];
  const callsByIndex = new Map<number, PendingCall>();
  const calls: PendingCall[] = [];
  let events: ResponsesStreamEvent[] = [];
  let sequenceNumber = 0;
  let phase: 'new' | 'streaming' | 'ended' = 'new';
  let message: StreamMessageItem | undefined;
  let reasoning: StreamReasoningItem | undefined;
  let lastCall: PendingCall | undefined;
  let finishReason: ChatFinishReason | null = null;
  let usage: ChatUsage | undefined;

  const emit = (body: StreamEventBody): void => {
    events.push({ ...body, sequence_number: sequenceNumber++ });
  };

  /** Runs one step and returns the events it emitted, beginning the stream first if needed. */
  function step(action: () => void): ResponsesStreamEvent[] {
    events = [];
    if (phase === 'ended') return events;
    if (phase === 'new') {
      phase = 'streaming';
      emit({ type: 'response.created', response: buildResponseObject(ctx, { status: 'in_progress', output: [] }) });
      emit({ type: 'response.in_progress', response: buildResponseObject(ctx, { status: 'in_progress', output: [] }) });
    }
    action();
    return events;
  }

  function nextOutputIndex(): number {
    return items.length;
  }

  function onDelta(delta: ChatChunkDelta): void {
    if (delta.reasoning_content) {
      reasoning ??= track(new StreamReasoningItem(ctx.newId('rs'), nextOutputIndex(), emit));
      reasoning.append(delta.reasoning_content);
    }
    if (delta.reasoning_details?.length) {
      reasoning ??= track(new StreamReasoningItem(ctx.newId('rs'), nextOutputIndex(), emit));
      reasoning.carry(delta.reasoning_details);
    }
    if (delta.content) {
      message ??= track(new StreamMessageItem(ctx.newId('msg'), nextOutputIndex(), emit));
      message.appendText(delta.content);
    }
    if (delta.refusal) {
      message ??= track(new StreamMessageItem(ctx.newId('msg'), nextOutputIndex(), emit));
      message.appendRefusal(delta.refusal);
    }
    for (const fragment of delta.tool_calls ?? []) onToolCallFragment(fragment);
  }

  function track<Item extends StreamItem>(item: Item): Item {
    items.push(item);
    return item;
  }

  /**
   * Fragments are matched by chat `index`, but upstreams are sloppy (wire-formats.md §7.2): a fragment
   * with a new id, or a new name once arguments began, is a new call even if the index repeats, and a
   * fragment without an index continues the call last seen.
   */
  function onToolCallFragment(fragment: ChatToolCallDelta): void {
    const chatIndex = typeof fragment.index === 'number' ? fragment.index : (lastCall?.chatIndex ?? 0);
    let call = callsByIndex.get(chatIndex);
    if (call === undefined || startsNewCall(call, fragment)) {
      call = { chatIndex, callId: fragment.id ?? ctx.newId('call'), name: '', bufferedArguments: '' };
      callsByIndex.set(chatIndex, call);
      calls.push(call);
    }
    lastCall = call;
    const name = fragment.function?.name;
    if (name && call.item === undefined) call.name = name;
    const argumentsDelta = fragment.function?.arguments ?? '';
    if (call.item) {
      call.item.appendArguments(argumentsDelta);
      return;
    }
    call.bufferedArguments += argumentsDelta;
    // output_item.added must carry the name, so a call whose name has not arrived yet waits.
    if (call.name !== '') openCall(call);
  }

  function startsNewCall(call: PendingCall, fragment: ChatToolCallDelta): boolean {
    if (fragment.id && fragment.id !== call.callId) return true;
    const name = fragment.function?.name;
    const argumentsBegan = call.item ? call.item.hasArguments : call.bufferedArguments !== '';
    return Boolean(name) && call.name !== '' && name !== call.name && argumentsBegan;
  }

  function openCall(call: PendingCall): void {
    const custom = customTools.has(call.name);
    const identity = { itemId: ctx.newId(custom ? 'ctc' : 'fc'), callId: call.callId, name: call.name, custom };
    const item = track(new StreamToolCallItem(identity, nextOutputIndex(), emit));
    item.appendArguments(call.bufferedArguments);
    call.item = item;
  }

  function onChunk(chunk: ChatCompletionChunk): void {
    if (chunk.usage) usage = chunk.usage;
    // Responses has no `n`: only the first choice is the answer.
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (choice === undefined) return;
    onDelta(choice.delta ?? {});
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }

  function finish(): void {
    // A call whose name never arrived still reaches the client rather than vanishing.
    for (const call of calls) if (call.item === undefined) openCall(call);
    const { status, incompleteReason } = statusFromFinishReason(finishReason);
    const output = items.map((item) => item.close(itemStatusFor(status)));
    const response = buildResponseObject(ctx, { status, output, usage, incompleteReason });
    emit({ type: status === 'completed' ? 'response.completed' : 'response.incomplete', response });
    phase = 'ended';
  }

  function fail(failure: ResponsesStreamFailure): void {
    // Open items are not closed: an output_item.done would make Codex record or run a partial call.
    const error = { code: failure.code, message: failureMessage(failure) };
    emit({ type: 'response.failed', response: buildResponseObject(ctx, { status: 'failed', output: [], usage, error }) });
    phase = 'ended';
  }

  return {
    start: () => step(() => {}),
    onChunk: (chunk) => step(() => onChunk(chunk)),
    finish: () => step(finish),
    fail: (failure) => step(() => fail(failure)),
  };
}

/** Codex parses the retry delay of a rate_limit_exceeded failure from the message text only. */
function failureMessage(failure: ResponsesStreamFailure): string {
  const { code, message, retryAfterSeconds } = failure;
  if (code !== 'rate_limit_exceeded' || retryAfterSeconds === undefined || /try again in/i.test(message)) return message;
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return `${message.trimEnd()} Please try again in ${seconds}s.`;
}
