/** One adapter per API format: adding a format is one folder plus one line here. */
import type { ProviderFormat } from '../config/types.js';
import type { ProviderAdapter } from './adapter.js';
import { anthropicAdapter } from './anthropic/index.js';
import { createGeminiAdapter } from './gemini/index.js';
import { openaiAdapter } from './openai/index.js';

export type AdapterRegistry = Readonly<Record<ProviderFormat, ProviderAdapter>>;

export function createAdapterRegistry(): AdapterRegistry {
  return { openai: openaiAdapter, anthropic: anthropicAdapter, gemini: createGeminiAdapter() };
}
