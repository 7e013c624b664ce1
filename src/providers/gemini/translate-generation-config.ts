import { RouterError } from '../../core/errors.js';
import type { CatalogModel } from '../../config/types.js';
import type { ChatRequest } from '../../formats/openai-chat.js';
import { budgetBounds, thinkingPlan } from '../requested-reasoning.js';
import type { GeminiGenerationConfig, GeminiThinkingConfig } from './gemini-types.js';

/** Sampling, limits, output format and thinking → `generationConfig`; undefined when nothing is set. */
export function translateGenerationConfig(request: ChatRequest, model?: CatalogModel): GeminiGenerationConfig | undefined {
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
  const thinkingConfig = thinking(request, model);
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

/**
 * The effort (or budget) asked → `thinkingConfig`, only for a model whose catalog entry says it reasons
 * (catalog.yaml `reasoning`: its budget per effort, or Gemini 3's `thinkingLevel` with `levels: true`);
 * for any other model the field is dropped. Thought summaries come back as `reasoning_content` unless the
 * client asked to exclude them.
 */
function thinking(request: ChatRequest, model: CatalogModel | undefined): GeminiThinkingConfig | undefined {
  const plan = thinkingPlan(request, model);
  if (plan === undefined) return undefined;
  if (plan.kind === 'off') return { thinkingBudget: 0 };
  const includeThoughts = !plan.exclude;
  if (plan.kind === 'level') return { thinkingLevel: plan.level, includeThoughts };
  if (plan.budget === 0) return { thinkingBudget: 0 };
  const bounds = budgetBounds(model?.reasoning);
  const budget = bounds === undefined ? plan.budget : Math.min(bounds.max, Math.max(bounds.min, plan.budget));
  return { thinkingBudget: budget, includeThoughts };
}
