import { RouterError } from '../../core/errors.js';
import type { ChatMessage, ChatToolCall } from '../../formats/openai-chat.js';
import type { GeminiContent, GeminiPart } from './gemini-types.js';
import { textOf, translateContentParts } from './translate-content-parts.js';
import { GEMINI_REASONING_FORMAT } from './read-parts.js';

/**
 * quirk(gemini): Gemini 3 rejects function-call history whose first functionCall part of a step has no
 * thought signature. For calls it never issued to us (foreign or expired history) Google documents this
 * value as the way to skip the check.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

export interface TranslatedMessages {
  systemInstruction?: { parts: GeminiPart[] };
  contents: GeminiContent[];
}

/**
 * Chat messages → Gemini `systemInstruction` + `contents`. System and developer messages are lifted
 * out wherever they appear; consecutive turns of the same role are merged, which also puts every
 * function result of one assistant turn into a single user content, in call order.
 */
export function translateMessages(messages: readonly ChatMessage[]): TranslatedMessages {
  const systemParts: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();

  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content, `${param}.content`);
        if (text !== '') systemParts.push({ text });
        return;
      }
      case 'user':
        return append(contents, 'user', translateContentParts(message.content, `${param}.content`));
      case 'assistant':
        for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
        return append(contents, 'model', assistantParts(message, param));
      case 'tool':
        return append(contents, 'user', [functionResponsePart(message, param, toolNames)]);
      default:
        throw new RouterError('unsupported_parameter', `Messages with role '${message.role}' cannot be sent to Gemini; use tool messages.`, {
          param: `${param}.role`,
        });
    }
  });

  if (contents.length === 0) {
    throw new RouterError('invalid_request', 'At least one user or assistant message is required.', { param: 'messages' });
  }
  return systemParts.length === 0 ? { contents } : { systemInstruction: { parts: systemParts }, contents };
}

function append(contents: GeminiContent[], role: GeminiContent['role'], parts: GeminiPart[]): void {
  if (parts.length === 0) return;
  const last = contents[contents.length - 1];
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

function assistantParts(message: ChatMessage, param: string): GeminiPart[] {
  const parts = translateContentParts(message.content, `${param}.content`);
  const signatures = signaturesOf(message);
  (message.tool_calls ?? []).forEach((call, index) => {
    const part: GeminiPart = { functionCall: { name: call.function.name, args: parseArguments(call) } };
    // Gemini signs only the first call of a parallel step; the others legitimately carry none.
    const signature = signatures.get(call.id) ?? (index === 0 ? SKIP_THOUGHT_SIGNATURE : undefined);
    if (signature !== undefined) part.thoughtSignature = signature;
    parts.push(part);
  });
  return parts;
}

/**
 * The thought signatures the client sent back, by the id of the call each signs: in `reasoning_details`,
 * or on the call in `extra_content.google.thought_signature` (Google's OpenAI-compatible field).
 */
export function signaturesOf(message: ChatMessage): Map<string, string> {
  const signatures = new Map<string, string>();
  for (const detail of Array.isArray(message.reasoning_details) ? message.reasoning_details : []) {
    if (detail.format !== GEMINI_REASONING_FORMAT || detail.type !== 'reasoning.encrypted') continue;
    if (typeof detail.id === 'string' && typeof detail.data === 'string') signatures.set(detail.id, detail.data);
  }
  for (const call of message.tool_calls ?? []) {
    const carried: unknown = call.extra_content?.google?.thought_signature;
    if (typeof carried === 'string' && carried !== '' && !signatures.has(call.id)) signatures.set(call.id, carried);
  }
  return signatures;
}

/**
 * `arguments` is a JSON string that models do not always get right; Gemini needs an object. A history
 * with broken arguments is still replayed (wrapped) rather than failing the whole conversation.
 */
function parseArguments(call: ChatToolCall): Record<string, unknown> {
  const raw = call.function.arguments;
  if (raw.trim() === '') return {};
  const parsed = parseJson(raw);
  return isPlainObject(parsed) ? parsed : { arguments: raw };
}

function functionResponsePart(message: ChatMessage, param: string, toolNames: ReadonlyMap<string, string>): GeminiPart {
  const callId = message.tool_call_id;
  // quirk(gemini): results are matched by function name, not id; chat tool messages only carry the id.
  const name = (callId === undefined ? undefined : toolNames.get(callId)) ?? message.name;
  if (name === undefined) {
    throw new RouterError('invalid_request', 'A tool message must answer a tool call made by an earlier assistant message in the same request.', {
      param: `${param}.tool_call_id`,
    });
  }
  const output = textOf(message.content, `${param}.content`);
  const parsed = parseJson(output);
  return { functionResponse: { name, response: isPlainObject(parsed) ? parsed : { content: output } } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
