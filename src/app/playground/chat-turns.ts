/**
 * The playground's conversation, carried in the page itself: a hidden form field holding the earlier
 * turns as JSON, posted back with the next message. Nothing is kept on the server (no store to bound,
 * no prompts at rest, any instance can answer the next turn), so the bounds are on the field: at most
 * MAX_EXCHANGES question-and-answer pairs and MAX_CARRIED_BYTES once form-encoded, which leaves room
 * for a full message inside the playground's 64 KiB form limit (playground-pages.ts). Past either bound the oldest
 * exchanges are dropped, and the page says so. What the browser sends back is read as untrusted input:
 * anything that is not a list of user/assistant turns is refused, never passed on.
 */

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
  /** For an answer: what it cost in USD as the router reported it (usage.cost), and who answered. */
  cost?: string | null;
  model?: string | null;
}

export const MAX_EXCHANGES = 8;
export const MAX_CARRIED_BYTES = 8 * 1024;
/** The longest message a person may type; a carried answer may be as long as the field allows. */
export const MAX_MESSAGE = 4000;

export type ParsedConversation = { ok: true; turns: ChatTurn[] } | { ok: false };

/** The hidden field's value back into turns; an empty field is a new chat. */
export function parseConversation(field: string | undefined): ParsedConversation {
  if (field === undefined || field.trim() === '') return { ok: true, turns: [] };
  if (encodedBytes(field) > MAX_CARRIED_BYTES * 2) return { ok: false };
  let value: unknown;
  try {
    value = JSON.parse(field);
  } catch {
    return { ok: false };
  }
  if (!Array.isArray(value)) return { ok: false };
  const turns: ChatTurn[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'object' || item === null) return { ok: false };
    const { role, content, cost, model } = item as Record<string, unknown>;
    // Strictly alternating, starting with the person: the shape every chat API expects.
    const expected = index % 2 === 0 ? 'user' : 'assistant';
    if (role !== expected || typeof content !== 'string') return { ok: false };
    const turn: ChatTurn = { role: expected, content };
    if (role === 'assistant') {
      turn.cost = typeof cost === 'string' && /^\d+(\.\d+)?$/.test(cost) ? cost : null;
      turn.model = typeof model === 'string' ? model.slice(0, 200) : null;
    }
    turns.push(turn);
  }
  if (turns.length % 2 !== 0) return { ok: false };
  return { ok: true, turns };
}

/** The turns kept after an answer: the newest exchanges within both bounds, and whether any were dropped. */
export function boundConversation(turns: readonly ChatTurn[]): { turns: ChatTurn[]; dropped: boolean } {
  let kept = turns.slice(Math.max(0, turns.length - MAX_EXCHANGES * 2));
  while (kept.length > 2 && encodedBytes(serializeConversation(kept)) > MAX_CARRIED_BYTES) kept = kept.slice(2);
  // One exchange alone larger than the bound (a long answer, or a long message in a script that takes
  // 9 bytes a character form-encoded): the larger of its two texts is cut until the pair fits.
  if (kept.length === 2 && encodedBytes(serializeConversation(kept)) > MAX_CARRIED_BYTES) {
    let [question, answer] = kept as [ChatTurn, ChatTurn];
    while (encodedBytes(serializeConversation([question, answer])) > MAX_CARRIED_BYTES) {
      if (encodedBytes(question.content) >= encodedBytes(answer.content)) question = { ...question, content: shorten(question.content) };
      else answer = { ...answer, content: shorten(answer.content) };
    }
    kept = [question, answer];
  }
  const shortened = kept.length > 0 && (kept.at(-1)!.content !== turns.at(-1)!.content || kept.at(-2)!.content !== turns.at(-2)!.content);
  return { turns: kept, dropped: kept.length < turns.length || shortened };
}

/** Four fifths of a text, ending with "…" (never splitting a surrogate pair). */
function shorten(text: string): string {
  const characters = [...text.replace(/…$/, '')];
  const kept = characters.slice(0, Math.floor(characters.length * 0.8));
  return kept.length === 0 ? '' : `${kept.join('')}…`;
}

export function serializeConversation(turns: readonly ChatTurn[]): string {
  return turns.length === 0 ? '' : JSON.stringify(turns);
}

/** The messages sent to /v1/chat/completions: the earlier turns, then the new one (no costs or models). */
export function chatMessages(turns: readonly ChatTurn[], message: string): Array<{ role: 'user' | 'assistant'; content: string }> {
  return [...turns.map((turn) => ({ role: turn.role, content: turn.content })), { role: 'user', content: message }];
}

/** How many bytes a value takes in an application/x-www-form-urlencoded body. */
function encodedBytes(value: string): number {
  return new URLSearchParams({ v: value }).toString().length - 2;
}

export interface ChatParameters {
  temperature: number | null;
  maxTokens: number;
}

/**
 * Temperature (empty: the model's default; else 0 to 2, OpenAI's range) and max tokens (empty: the cap;
 * else a whole number from 1 to the cap, which is the playground's and the plan's output limit).
 */
export function readChatParameters(form: Readonly<Record<string, string>>, cap: number): { ok: true; value: ChatParameters } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const temperatureText = (form.temperature ?? '').trim();
  const temperature = temperatureText === '' ? null : Number(temperatureText);
  if (temperature !== null && (!/^\d+(\.\d+)?$/.test(temperatureText) || temperature > 2)) errors.temperature = 'Temperature is a number from 0 to 2, or empty for the model’s default.';
  const maxText = (form.max_output ?? '').trim();
  const maxTokens = maxText === '' ? cap : Number(maxText);
  if (maxText !== '' && (!/^\d+$/.test(maxText) || maxTokens < 1 || maxTokens > cap)) errors.max_output = `Max tokens is a whole number from 1 to ${cap}.`;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: { temperature, maxTokens } };
}
