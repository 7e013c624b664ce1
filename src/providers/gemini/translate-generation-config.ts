import { RouterError } from '../../core/errors.js';
import type { ChatRequest } from '../../formats/openai-chat.js';
import type { GeminiGenerationConfig, GeminiThinkingConfig } from './gemini-types.js';

/**
 * `reasoning_effort` → thinking token budget. Budgets rather than Gemini 3's `thinkingLevel` because
 * every thinking model accepts a budget (Gemini 3 for compatibility) while 2.5 rejects levels; the
 * numbers are the ones Google's own OpenAI-compatible endpoint uses.
 */
const THINKING_BUDGETS: Record<string, number> = {
  none: 0,
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
  max: 24576,
};

/** Sampling, limits, output format and thinking → `generationConfig`; undefined when nothing is set. */
export function translateGenerationConfig(request: ChatRequest): GeminiGenerationConfig | undefined {
  rejectLogprobs(request);
  const config: GeminiGenerationConfig = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) config.maxOutputTokens = maxTokens;
  if (request.temperature != null) config.temperature = request.temperature;
  if (request.top_p != null) config.topP = request.top_p;
  if (request.stop != null) config.stopSequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.n != null) config.candidateCount = request.n;
  if (request.seed != null) config.seed = request.seed;
  if (request.presence_penalty != null) config.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty != null) config.frequencyPenalty = request.frequency_penalty;
  Object.assign(config, responseFormat(request));
  const thinkingConfig = thinking(request.reasoning_effort);
  if (thinkingConfig) config.thinkingConfig = thinkingConfig;
  return Object.keys(config).length === 0 ? undefined : config;
}

function rejectLogprobs(request: ChatRequest): void {
  if (request.logprobs === true || request.top_logprobs != null) {
    const param = request.logprobs === true ? 'logprobs' : 'top_logprobs';
    throw new RouterError('unsupported_parameter', `\`${param}\` is not supported by Gemini upstreams.`, { param });
  }
}

function responseFormat(request: ChatRequest): Pick<GeminiGenerationConfig, 'responseMimeType' | 'responseJsonSchema'> {
  const format = request.response_format;
  if (format == null || format.type === 'text') return {};
  if (format.type === 'json_object') return { responseMimeType: 'application/json' };
  if (format.type === 'json_schema' && 'json_schema' in format) {
    const schema = format.json_schema.schema;
    return schema === undefined ? { responseMimeType: 'application/json' } : { responseMimeType: 'application/json', responseJsonSchema: schema };
  }
  throw new RouterError('unsupported_parameter', `response_format type '${(format as { type: string }).type}' is not supported by Gemini upstreams.`, {
    param: 'response_format.type',
  });
}

function thinking(effort: string | null | undefined): GeminiThinkingConfig | undefined {
  if (effort == null) return undefined;
  const thinkingBudget = THINKING_BUDGETS[effort];
  if (thinkingBudget === undefined) {
    throw new RouterError('unsupported_parameter', `reasoning_effort '${effort}' is not supported by Gemini upstreams.`, {
      param: 'reasoning_effort',
    });
  }
  // Thought summaries come back as `reasoning_content`, the chat field clients that ask for effort read.
  return thinkingBudget === 0 ? { thinkingBudget } : { thinkingBudget, includeThoughts: true };
}
