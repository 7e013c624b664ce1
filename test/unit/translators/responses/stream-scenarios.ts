/** Realistic chat chunk sequences, replayed by the schema and SDK compatibility tests. */
import type { ChatCompletionChunk } from '../../../../src/formats/openai-chat.js';
import type { ResponsesRequest, ResponsesStreamEvent } from '../../../../src/formats/openai-responses.js';
import { createResponsesStreamSynthesizer } from '../../../../src/translators/responses/responses-stream-synthesizer.js';
import { chunk, testContext, toolCallChunk, USAGE, usageChunk } from './responses-fixtures.js';

export interface StreamScenario {
  request: Partial<ResponsesRequest>;
  chunks: ChatCompletionChunk[];
}

/** The tools Codex CLI sends, hosted ones included, so echoes of them are checked too. */
export const CODEX_TOOLS: ResponsesRequest['tools'] = [
  {
    type: 'function',
    name: 'shell',
    description: 'Runs a shell command.',
    strict: false,
    parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] },
  },
  { type: 'custom', name: 'apply_patch', description: 'Edit files.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch"' } },
  { type: 'local_shell' },
  { type: 'web_search', external_web_access: false },
];

const PATCH_ARGUMENTS = JSON.stringify({ input: '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch' });

export const STREAM_SCENARIOS = {
  text: {
    request: { instructions: 'Be brief.' },
    chunks: [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usageChunk(USAGE)],
  },
  'codex tool turn': {
    request: { tools: CODEX_TOOLS, tool_choice: 'auto', parallel_tool_calls: false, reasoning: { effort: 'medium', summary: 'auto' }, store: false, prompt_cache_key: 'thread-1' },
    chunks: [
      chunk({ role: 'assistant', reasoning_content: 'Need to look ' }),
      chunk({ reasoning_content: 'at the file.' }),
      chunk({ content: 'Reading it.' }),
      toolCallChunk({ index: 0, id: 'call_s', type: 'function', function: { name: 'shell', arguments: '' } }),
      toolCallChunk({ index: 1, id: 'call_p', type: 'function', function: { name: 'apply_patch', arguments: PATCH_ARGUMENTS.slice(0, 12) } }),
      toolCallChunk({ index: 0, function: { arguments: '{"command":["ls"]}' } }),
      toolCallChunk({ index: 1, function: { arguments: PATCH_ARGUMENTS.slice(12) } }),
      chunk({}, 'tool_calls'),
      usageChunk(USAGE),
    ],
  },
  refusal: {
    request: {},
    chunks: [chunk({ role: 'assistant', refusal: 'I cannot ' }), chunk({ refusal: 'help with that.' }), chunk({}, 'stop')],
  },
  truncated: {
    request: { max_output_tokens: 5, temperature: 0.5, top_p: 0.9, metadata: { run: '1' }, user: 'u-1' },
    chunks: [chunk({ content: 'Once upon a' }), chunk({}, 'length'), usageChunk(USAGE)],
  },
} satisfies Record<string, StreamScenario>;

export function replay(scenario: StreamScenario): ResponsesStreamEvent[] {
  const synthesizer = createResponsesStreamSynthesizer(testContext(scenario.request));
  return [...synthesizer.start(), ...scenario.chunks.flatMap((each) => synthesizer.onChunk(each)), ...synthesizer.finish()];
}

export function replayFailure(scenario: StreamScenario, code: string): ResponsesStreamEvent[] {
  const synthesizer = createResponsesStreamSynthesizer(testContext(scenario.request));
  return [
    ...synthesizer.start(),
    ...scenario.chunks.slice(0, 3).flatMap((each) => synthesizer.onChunk(each)),
    ...synthesizer.fail({ code, message: 'Upstream failed.', retryAfterSeconds: 4 }),
  ];
}
