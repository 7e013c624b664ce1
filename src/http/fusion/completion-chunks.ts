/**
 * A finished chat completion as the chunks a stream of it would have carried (role, content, tool calls,
 * finish, usage): the server-tool path learns the model's final turn whole and streams it this way.
 */
import type { ChatCompletion, ChatCompletionChunk } from '../../formats/openai-chat.js';
import type { CommittedStream } from '../../routing/chat-attempts.js';

export function completionAsStream(completion: ChatCompletion): CommittedStream<ChatCompletionChunk> {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  const head: ChatCompletionChunk[] = [];
  for (const { index, message, finish_reason } of completion.choices) {
    head.push({ ...base, choices: [{ index, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    if (message.content) head.push({ ...base, choices: [{ index, delta: { content: message.content }, finish_reason: null }] });
    message.tool_calls?.forEach((call, i) =>
      head.push({ ...base, choices: [{ index, delta: { tool_calls: [{ index: i, id: call.id, type: 'function', function: call.function }] }, finish_reason: null }] }),
    );
    head.push({ ...base, choices: [{ index, delta: {}, finish_reason: finish_reason ?? 'stop' }] });
  }
  if (completion.usage) head.push({ ...base, choices: [], usage: completion.usage });
  return { head, tail: (async function* () {})() };
}
