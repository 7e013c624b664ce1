/** One adapter per API format: adding a format is one folder plus one line here. */
import type { Clock } from '../core/clock.js';
import type { AdapterRegistry } from './adapter.js';
import { createAnthropicAdapter } from './anthropic/index.js';
import { createGeminiAdapter } from './gemini/index.js';
import { createOpenAIAdapter } from './openai/index.js';

/** One registry per router, on the router's clock (answers' creation times, Retry-After dates). */
export function createAdapterRegistry(clock: Clock): AdapterRegistry {
  return { openai: createOpenAIAdapter(clock), anthropic: createAnthropicAdapter(clock), gemini: createGeminiAdapter({ clock }) };
}
