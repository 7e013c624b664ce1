/**
 * A preset's configuration applied to a request: each field written in the request's own API, and only
 * where the request did not state it (request fields override the preset's). The result is judged by
 * the endpoint's schema and the plan exactly as if the client had sent it.
 */
import type { PresetApi, PresetConfig } from './preset-config.js';

const absent = (value: unknown): boolean => value === undefined || value === null;

export function applyPresetConfig(api: PresetApi, config: PresetConfig, body: Record<string, unknown>): void {
  const fill = (field: string, value: unknown) => {
    if (value !== undefined && absent(body[field])) body[field] = value;
  };
  fill('model', config.model);
  fill('provider', config.provider);
  fill('temperature', config.temperature);
  fill('top_p', config.top_p);
  if (api === 'chat') {
    if (config.system !== undefined && Array.isArray(body.messages) && !body.messages.some(isSystemMessage)) {
      body.messages = [{ role: 'system', content: config.system }, ...body.messages];
    }
    if (absent(body.max_tokens) && absent(body.max_completion_tokens)) fill('max_tokens', config.max_tokens);
    fill('stop', config.stop);
    fill('seed', config.seed);
    fill('presence_penalty', config.presence_penalty);
    fill('frequency_penalty', config.frequency_penalty);
    if (absent(body.reasoning)) fill('reasoning_effort', config.reasoning_effort);
  } else if (api === 'responses') {
    fill('instructions', config.system);
    fill('max_output_tokens', config.max_tokens);
    if (config.reasoning_effort !== undefined) fill('reasoning', { effort: config.reasoning_effort });
  } else {
    fill('system', config.system);
    fill('max_tokens', config.max_tokens);
    fill('top_k', config.top_k);
    fill('stop_sequences', config.stop);
  }
}

function isSystemMessage(message: unknown): boolean {
  const role = (message as { role?: unknown } | null)?.role;
  return role === 'system' || role === 'developer';
}
