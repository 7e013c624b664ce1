/**
 * The requests of a fusion run, built from the client's chat request. The panel and the judge get the
 * conversation with tool traffic flattened to text and no tools at all (the panel never sees
 * `router:fusion`, so no recursion, and the client's tools are the writer's to call); the writer gets the
 * client's request as it is, with the panel's answers and the analysis as reference material and
 * instructions to answer in one voice without narrating how the answer was made.
 */
import type { ChatMessage, ChatRequest } from '../../formats/openai-chat.js';
import type { FusionAnalysis } from './fusion-analysis.js';

/** Fields that shape a single answer of the client's (kept for the writer, dropped for the panel and judge). */
const ANSWER_SHAPING = ['tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'n', 'logprobs', 'top_logprobs', 'stream_options', 'max_tokens'] as const;

export const JUDGE_INSTRUCTIONS = [
  'You compare several candidate answers to the conversation above and report, as one JSON object and nothing else, with these keys:',
  '"consensus" (points the answers agree on), "contradictions" (where they disagree, and which side is better supported),',
  '"partialCoverage" (parts of the question only some answers cover), "uniqueInsights" (valuable points only one answer makes),',
  '"blindSpots" (what every answer missed or got wrong): each an array of short strings;',
  'and optionally "bestAnswer": the number of the strongest answer. Judge correctness, not style. Output only the JSON object.',
].join(' ');

export const WRITER_INSTRUCTIONS = [
  'Answer the user directly, as yourself, in one voice.',
  'Reference drafts and an analysis of them follow; use what is correct in them, settle their disagreements on the merits, and fill what they missed.',
  'Never mention or hint at the drafts, the analysis, other models, experts, a panel, a judge, or how the answer was produced',
  '(no "Expert 1 says", no "the answers agree"). If the user\'s request calls for one of the available tools, call it as usual.',
].join(' ');

const NO_ANALYSIS = 'No analysis of the drafts is available; weigh them yourself.';

/** A panel member's request: the conversation, no tools, the panel's output cap. */
export function panelRequest(chat: ChatRequest, maxOutputTokens: number): ChatRequest {
  const clientCap = chat.max_completion_tokens ?? chat.max_tokens ?? undefined;
  return {
    ...withoutAnswerShaping(chat),
    messages: flattenToolTraffic(chat.messages),
    stream: false,
    max_completion_tokens: clientCap === undefined ? maxOutputTokens : Math.min(clientCap, maxOutputTokens),
  };
}

/** The judge's request: the conversation, then the numbered answers and the instruction to answer with JSON. */
export function judgeRequest(chat: ChatRequest, answers: readonly string[], maxOutputTokens: number): ChatRequest {
  return {
    ...withoutAnswerShaping(chat),
    messages: [...flattenToolTraffic(chat.messages), { role: 'user', content: `${numbered('Candidate answer', answers)}\n\n${JUDGE_INSTRUCTIONS}` }],
    stream: false,
    max_completion_tokens: maxOutputTokens,
  };
}

/**
 * The writer's request: the client's own (tools, output cap and stream included), with one system
 * message in front holding the instructions, the drafts and the analysis (or the note that there is none).
 */
export function writerRequest(chat: ChatRequest, answers: readonly string[], analysis: FusionAnalysis | undefined, stream: boolean): ChatRequest {
  const reference = [WRITER_INSTRUCTIONS, numbered('Reference draft', answers), analysis ? `Analysis of the drafts (JSON):\n${JSON.stringify(analysis)}` : NO_ANALYSIS];
  return { ...chat, stream, messages: [{ role: 'system', content: reference.join('\n\n') }, ...chat.messages] };
}

function numbered(title: string, answers: readonly string[]): string {
  return answers.map((answer, i) => `<${kebab(title)} number="${i + 1}">\n${answer}\n</${kebab(title)}>`).join('\n\n');
}

function kebab(title: string): string {
  return title.toLowerCase().replace(/\s+/g, '-');
}

function withoutAnswerShaping(chat: ChatRequest): ChatRequest {
  const copy: ChatRequest = { ...chat };
  for (const field of ANSWER_SHAPING) delete copy[field];
  return copy;
}

/**
 * Tool calls and tool results as plain text: a request without tools may not carry them (hosts reject
 * tool messages without tool definitions), yet they are part of the conversation the panel must see.
 */
export function flattenToolTraffic(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (message.role === 'tool' || message.role === 'function') {
      return { role: 'user', content: `[Result of tool call ${message.tool_call_id ?? message.name ?? ''}]\n${textOf(message)}` };
    }
    if (message.role === 'assistant' && message.tool_calls?.length) {
      const calls = message.tool_calls.map((call) => `[Called tool ${call.function.name} (${call.id}) with ${call.function.arguments}]`);
      const { tool_calls: _calls, ...rest } = message;
      return { ...rest, content: [textOf(message), ...calls].filter(Boolean).join('\n') };
    }
    return message;
  });
}

function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
