/** One adapter per API format: adding a format is one folder plus one line here. */
import type { Clock } from '../core/clock.js';
import type { AdapterRegistry } from './adapter.js';
import { createAnthropicAdapter } from './anthropic/index.js';
import { createGeminiAdapter } from './gemini/index.js';
import { openaiAdapter } from './openai/index.js';

/** One registry per router: the Gemini adapter keeps thought signatures between turns in it. */
export function createAdapterRegistry(clock: Clock): AdapterRegistry {
  return { openai: openaiAdapter, anthropic: createAnthropicAdapter(clock), gemini: createGeminiAdapter({ clock }) };
}
