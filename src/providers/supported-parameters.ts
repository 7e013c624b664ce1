/**
 * Which request parameters each wire format's adapter honours (sends on, or translates), as opposed to
 * refusing or dropping them: what `provider.require_parameters` filters on and what /v1/models lists as
 * `supported_parameters`. Kept beside the adapters' own rules (anthropic/build-anthropic-request.ts
 * refuses n > 1 and logprobs and drops seed and the penalties; Gemini refuses logprobs and drops logit_bias),
 * and here rather than in routing/, which names no format.
 */
import type { ProviderConfig, ProviderFormat } from '../config/types.js';

const COMMON = ['max_tokens', 'temperature', 'top_p', 'stop', 'tools', 'tool_choice', 'response_format', 'parallel_tool_calls'] as const;

const SUPPORTED: Readonly<Record<ProviderFormat, ReadonlySet<string>>> = {
  openai: new Set([...COMMON, 'seed', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'n', 'reasoning_effort']),
  anthropic: new Set([...COMMON, 'reasoning_effort']),
  gemini: new Set([...COMMON, 'seed', 'presence_penalty', 'frequency_penalty', 'n', 'reasoning_effort']),
};

/** A request field as the table names it: the Responses API's and the output-cap spellings fold into the chat names. */
const FIELD_NAME: ReadonlyMap<string, string> = new Map([
  ['max_completion_tokens', 'max_tokens'],
  ['max_output_tokens', 'max_tokens'],
  ['text', 'response_format'],
  ['reasoning', 'reasoning_effort'],
  ['stop_sequences', 'stop'],
  ['top_k', 'top_k'],
]);

const KNOWN = new Set([...Object.values(SUPPORTED).flatMap((set) => [...set]), 'top_k']);

/** What a provider honours: its format's parameters less the ones its host refuses or ignores (providers.yaml `unsupportedParameters`). */
export function supportedParameters(provider: Pick<ProviderConfig, 'format' | 'unsupportedParameters'>): readonly string[] {
  const refused = new Set<string>(provider.unsupportedParameters ?? []);
  return [...SUPPORTED[provider.format]].filter((name) => !refused.has(name)).sort();
}

/** The steering parameters a request body sets (non-null), in the table's names; fields the table does not know are not counted. */
export function requestedParameters(body: Record<string, unknown>): string[] {
  const found = new Set<string>();
  for (const [field, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    const name = FIELD_NAME.get(field) ?? field;
    if (KNOWN.has(name)) found.add(name);
  }
  return [...found];
}

/** The first requested parameter this provider does not honour, or undefined when it honours them all. */
export function unsupportedParameter(provider: Pick<ProviderConfig, 'format' | 'unsupportedParameters'>, requested: readonly string[]): string | undefined {
  const refused: readonly string[] = provider.unsupportedParameters ?? [];
  return requested.find((name) => !SUPPORTED[provider.format].has(name) || refused.includes(name));
}
