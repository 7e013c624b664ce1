/**
 * The playground: a chat, each turn a request sent as the account through the whole /v1 pipeline (loopback HTTP to
 * this server's own listener with the account's playground key, see playground/), with the
 * model or route profile chosen from the plan's, temperature and max tokens set, the conversation so far
 * carried in the page (playground/chat-turns.ts), the answer streamed with its cost, and the response headers and the receipt
 * (request id, who served it, tokens, the month's count) shown. With JavaScript the answer streams as
 * NDJSON events to app.js; without it the form posts and the finished answer comes back as a page.
 */
import { getRequestHeader, sendStream, setResponseHeader, type H3Event, type Router } from 'h3';
import { callReadiness } from '../call-readiness.js';
import { verificationNeeded, verifyEmailView } from '../email-verification.js';
import { formProblem } from '../form-state.js';
import { setSecurityHeaders } from '../http-helpers.js';
import { signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import { loopbackChat, PLAYGROUND_MAX_TOKENS, type LoopbackTarget, type PlaygroundEvent, type PlaygroundInput } from '../playground/loopback-chat.js';
import { PlaygroundKeys } from '../playground/playground-keys.js';
import { boundConversation, chatMessages, MAX_EXCHANGES, MAX_MESSAGE, parseConversation, readChatParameters, serializeConversation, type ChatTurn } from '../playground/chat-turns.js';
import { planAllowsModel } from '../../config/model-globs.js';
import type { WebDeps } from '../web-deps.js';

const CALL_TIMEOUT_MS = 120_000;
const PLAYGROUND_FORM_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_PLAYGROUND_MESSAGE = 'Say hello and tell me in one sentence what you can do.';

/** The end of an answered turn as the page gets it: the receipt, plus the conversation to carry on with. */
type ChatEvent = PlaygroundEvent | (Extract<PlaygroundEvent, { type: 'done' }> & { conversation: string; dropped: boolean });

export function registerPlaygroundPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const playgroundKeys = new PlaygroundKeys(deps.keys, deps.store, deps.clock, deps.config.server.secretKey?.reveal());
  const profilesOf = (page: PageContext) => page.plan?.routeProfiles ?? [];
  // The concrete catalog models the plan allows (plans.yaml `models`), offered beside its route profiles;
  // chat models only: an embedding or rerank model cannot answer a chat.
  const modelsOf = (page: PageContext) =>
    deps.config.catalog.concreteModels.filter((model) => model.kind === 'chat' && !profilesOf(page).includes(model.id) && planAllowsModel(page.plan, model.id)).map((model) => model.id);
  // At most the plan's own output cap: asking for more would be refused (400) on a plan capped lower.
  const capOf = (page: PageContext) => Math.min(PLAYGROUND_MAX_TOKENS, page.plan?.maxOutputTokens ?? PLAYGROUND_MAX_TOKENS);

  async function view(page: PageContext, extra: Record<string, unknown> = {}, status?: number) {
    const readiness = await callReadiness(deps, page.account);
    const turns = (extra.turns as ChatTurn[] | undefined) ?? [];
    return page.view(
      'playground',
      {
        title: 'Playground',
        profiles: profilesOf(page),
        models: modelsOf(page),
        profile: profilesOf(page)[0],
        message: DEFAULT_PLAYGROUND_MESSAGE,
        maxTokensCap: capOf(page),
        maxExchanges: MAX_EXCHANGES,
        readiness,
        ...extra,
        turns,
        conversation: serializeConversation(turns),
      },
      status ? { status } : {},
    );
  }

  /** An account that must still confirm its email is shown how to, and nothing is called or minted for it. */
  const unconfirmed = (page: PageContext, status?: number) =>
    verifyEmailView(deps, page, { notice: 'Confirm your email address to use the playground: it sends real requests that count against your plan.' }, status);

  router.get(`${app}/playground`, signedInPage(deps, async (_event, page) => ((await verificationNeeded(deps, page.account.id)) ? unconfirmed(page) : view(page))));
  router.post(
    `${app}/playground`,
    signedInAction(
      deps,
      async (event, page, form) => {
        // Before the form is read: no key is minted and no model called (a page script falls back to this page on a non-200).
        if (await verificationNeeded(deps, page.account.id)) return unconfirmed(page, 403);
        const profile = form.profile ?? '';
        const message = (form.message ?? '').trim();
        const conversation = parseConversation(form.conversation);
        const turns = conversation.ok ? conversation.turns : [];
        const fieldErrors: Record<string, string> = {};
        if (!profilesOf(page).includes(profile) && !modelsOf(page).includes(profile)) fieldErrors.profile = 'Choose a model or route profile from the list.';
        if (message === '') fieldErrors.message = 'Write a message to send.';
        else if (message.length > MAX_MESSAGE) fieldErrors.message = `Keep the message under ${MAX_MESSAGE} characters.`;
        else if (!conversation.ok) fieldErrors.message = 'The earlier turns of this chat could not be read. Start a new chat and send the message again.';
        const parameters = readChatParameters(form, capOf(page));
        if (!parameters.ok) Object.assign(fieldErrors, parameters.errors);
        if (!parameters.ok || Object.keys(fieldErrors).length > 0) return view(page, { ...formProblem(`${app}/playground`, form, fieldErrors), turns }, 400);
        const input = { profile, messages: chatMessages(turns, message), maxTokens: parameters.value.maxTokens, temperature: parameters.value.temperature };
        const events = withConversation(callAsAccount(page.account.id, ownListener(event), input), turns, message);
        if ((getRequestHeader(event, 'accept') ?? '').includes('application/x-ndjson')) {
          setSecurityHeaders(event);
          setResponseHeader(event, 'content-type', 'application/x-ndjson; charset=utf-8');
          return sendStream(event, ndjson(events));
        }
        const result = await collect(events);
        // Answered: the box is empty for the next turn. Refused: the message stays, to send again.
        const settings = { profile, temperature: form.temperature ?? '', maxOutput: form.max_output ?? '' };
        if (result.conversation === null) return view(page, { ...settings, message, result, turns });
        return view(page, { ...settings, message: '', result, turns: parseTurns(result.conversation), dropped: result.dropped });
      },
      // The carried conversation (at most 8 KiB) and a 4000-character message, which takes up to 36 KiB
      // form-encoded in a script that is not Latin, must fit beside each other.
      { formLimitBytes: PLAYGROUND_FORM_LIMIT_BYTES },
    ),
  );

  /** Adds the turn to the conversation once it is answered; a refused or broken turn is not carried on. */
  async function* withConversation(events: AsyncGenerator<PlaygroundEvent>, turns: readonly ChatTurn[], message: string): AsyncGenerator<ChatEvent> {
    let answer = '';
    let failed = false;
    for await (const event of events) {
      if (event.type === 'delta') answer += event.text;
      if (event.type === 'error') failed = true;
      if (event.type !== 'done' || failed) {
        yield event;
        continue;
      }
      const bounded = boundConversation([...turns, { role: 'user', content: message }, { role: 'assistant', content: answer, cost: event.cost, model: event.model }]);
      yield { ...event, conversation: serializeConversation(bounded.turns), dropped: bounded.dropped };
    }
  }

  /** The call, made again once with a new key when the held one was refused (revoked or expired meanwhile). */
  async function* callAsAccount(accountId: string, target: LoopbackTarget, input: PlaygroundInput): AsyncGenerator<PlaygroundEvent> {
    const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
    for (let attempt = 0; attempt < 2; attempt++) {
      let refusedKey = false;
      for await (const event of loopbackChat(target, await playgroundKeys.keyFor(accountId), input, signal)) {
        if (event.type === 'headers' && event.status === 401 && attempt === 0) refusedKey = true;
        if (!refusedKey) yield event;
      }
      if (!refusedKey) return;
      playgroundKeys.forget(accountId);
    }
  }
}

/** This server's listener, as the browser's connection reached it (also right behind a reverse proxy). */
function ownListener(event: H3Event): LoopbackTarget {
  const socket = event.node.req.socket;
  const address = socket.localAddress ?? '127.0.0.1';
  return { address: address.startsWith('::ffff:') ? address.slice(7) : address, port: socket.localPort ?? 0 };
}

function ndjson(events: AsyncGenerator<ChatEvent>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
      } catch {
        controller.enqueue(encoder.encode(`${JSON.stringify({ type: 'error', status: 0, code: 'playground_unavailable', message: 'The request could not be completed. Try again.' })}\n`));
        controller.close();
      }
    },
    async cancel() {
      await events.return(undefined);
    },
  });
}

/** The whole exchange, for the page a browser without JavaScript gets back. */
async function collect(events: AsyncGenerator<ChatEvent>) {
  const result = {
    status: 0,
    headers: {} as Record<string, string>,
    answer: '',
    model: null as string | null,
    usage: null as { prompt: number; completion: number; total: number } | null,
    cost: null as string | null,
    error: null as { code: string; message: string } | null,
    conversation: null as string | null,
    dropped: false,
  };
  try {
    for await (const event of events) {
      if (event.type === 'headers') Object.assign(result, { status: event.status, headers: event.headers });
      else if (event.type === 'delta') result.answer += event.text;
      else if (event.type === 'done') Object.assign(result, { model: event.model, usage: event.usage, cost: event.cost }, 'conversation' in event ? { conversation: event.conversation, dropped: event.dropped } : {});
      else result.error = { code: event.code, message: event.message };
    }
  } catch {
    result.error = { code: 'playground_unavailable', message: 'The request could not be completed. Try again.' };
  }
  if (result.error) result.conversation = null;
  return { ...result, headerList: Object.entries(result.headers).map(([name, value]) => ({ name, value })) };
}

/** The conversation this server just wrote (always readable; an empty list if not). */
function parseTurns(conversation: string): ChatTurn[] {
  const parsed = parseConversation(conversation);
  return parsed.ok ? parsed.turns : [];
}
