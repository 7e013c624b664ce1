/**
 * A client that rebuilds its messages, as LangChain's ChatOpenAI, the AI SDK's OpenAI-compatible
 * provider and most hand-written loops do: of an answer it keeps the content and, of each tool call,
 * only `id`, `type` and `function`; every other field (reasoning_details, extra_content) is dropped.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { RecordedAnswer } from '../fakes/recorded-answer.js';

export const WEATHER_TOOL: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather at a place', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
};
export const ASK: ChatCompletionMessageParam = { role: 'user', content: 'What is the weather in Paris and in London?' };

export function rebuiltTurn(message: Pick<ChatCompletionMessage, 'content' | 'tool_calls'>): ChatCompletionMessageParam {
  const calls = (message.tool_calls ?? []).map(keptCall);
  return { role: 'assistant', content: message.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function keptCall(call: ChatCompletionMessageToolCall): ChatCompletionMessageFunctionToolCall {
  const fn = (call as { function: { name: string; arguments: string } }).function;
  return { id: call.id, type: 'function', function: { name: fn.name, arguments: fn.arguments } };
}

/** One tool message per call, in call order. */
export function toolResults(calls: readonly ChatCompletionMessageToolCall[]): ChatCompletionMessageParam[] {
  return calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: '{"temperature_c":18}' }));
}

/** A streamed answer accumulated the way such clients do (id, name and argument pieces per index), then rebuilt. */
export async function streamRebuilt(client: OpenAI, params: Omit<ChatCompletionCreateParamsStreaming, 'stream'>) {
  const stream = await client.chat.completions.create({ ...params, stream: true });
  const calls: ChatCompletionMessageFunctionToolCall[] = [];
  let content = '';
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    content += delta?.content ?? '';
    for (const piece of delta?.tool_calls ?? []) {
      const call = (calls[piece.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name += piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
    }
  }
  return { message: rebuiltTurn({ content: content === '' ? null : content, tool_calls: calls }), calls };
}

/** The thought signatures of a recorded Gemini answer, in order. */
export function signaturesOf(recorded: RecordedAnswer): string[] {
  return [...JSON.stringify(recorded.json).matchAll(/"thoughtSignature":"([^"]+)"/g)].map((match) => match[1]!);
}

/** The functionCall parts of the last model content a Gemini request carried. */
export function sentModelParts(body: unknown): Array<{ functionCall?: { name: string }; thoughtSignature?: string }> {
  const contents = (body as { contents: Array<{ role: string; parts: Array<Record<string, any>> }> }).contents;
  const model = contents.filter((content) => content.role === 'model').at(-1)!;
  return model.parts.filter((part) => part.functionCall !== undefined);
}
