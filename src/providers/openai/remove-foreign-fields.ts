/**
 * Fields of the internal chat shape that only mean something to other providers, taken out before an
 * OpenAI-compatible host sees the request: `cache_control` breakpoints (Anthropic's; OpenAI caches by
 * itself and rejects unknown message fields), `reasoning_details` (signed thinking for the provider that
 * made it), OpenRouter's `reasoning` object (its effort, or the effort nearest to its `max_tokens` budget,
 * becomes `reasoning_effort`, the field these hosts know; dropped for a model the catalog lists as not reasoning), and `prompt_cache_key` for hosts that have not declared they accept it (`promptCacheKey`).
 * Copies only what changes, and only when such a field is there: most requests carry none.
 */
import type { CatalogModel, ProviderConfig } from '../../config/types.js';
import { effortForBudget, mayReason } from '../requested-reasoning.js';
import type { ChatMessage } from '../../formats/openai-chat.js';
import { isRecord } from './is-record.js';

export function removeForeignFields(body: Record<string, unknown>, provider: ProviderConfig, model: CatalogModel | undefined): void {
  if (!provider.promptCacheKey) delete body.prompt_cache_key;
  if ('reasoning' in body) {
    const effort = isRecord(body.reasoning) ? effortOf(body.reasoning, model) : undefined;
    if (effort !== undefined && body.reasoning_effort == null) body.reasoning_effort = effort;
    delete body.reasoning;
  }
  // A model the catalog lists without `reasoning` refuses the field (gpt-4.1 answers 400); unlisted models get it as sent.
  if (!mayReason(model)) delete body.reasoning_effort;
  if (Array.isArray(body.messages) && body.messages.some(carriesForeignField)) body.messages = body.messages.map(withoutForeignFields);
  if (Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && 'cache_control' in tool)) {
    body.tools = body.tools.map((tool) => (isRecord(tool) && 'cache_control' in tool ? without(tool, 'cache_control') : tool));
  }
}

/** The effort named, or (as OpenRouter does for effort-only models) the one nearest to the budget asked. */
function effortOf(reasoning: Record<string, unknown>, model: CatalogModel | undefined): string | undefined {
  if (typeof reasoning.effort === 'string') return reasoning.effort;
  const budget = reasoning.max_tokens;
  return typeof budget === 'number' && budget > 0 ? effortForBudget(budget, model?.reasoning) : undefined;
}

function carriesForeignField(message: unknown): boolean {
  if (!isRecord(message)) return false;
  if ('cache_control' in message || 'reasoning_details' in message) return true;
  return Array.isArray(message.content) && message.content.some((part) => isRecord(part) && 'cache_control' in part);
}

function withoutForeignFields(message: unknown): unknown {
  if (!isRecord(message) || !carriesForeignField(message)) return message;
  const { cache_control: _breakpoint, reasoning_details: _details, ...rest } = message as ChatMessage & Record<string, unknown>;
  if (Array.isArray(rest.content)) rest.content = rest.content.map((part) => (isRecord(part) && 'cache_control' in part ? without(part, 'cache_control') : part)) as ChatMessage['content'];
  return rest;
}

function without(record: Record<string, unknown>, field: string): Record<string, unknown> {
  const { [field]: _dropped, ...rest } = record;
  return rest;
}
