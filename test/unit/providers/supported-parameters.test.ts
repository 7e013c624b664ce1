import { describe, expect, it } from 'vitest';
import { requestedParameters, supportedParameters, unsupportedParameter } from '../../../src/providers/supported-parameters.js';

describe('supported parameters per provider', () => {
  it("a host's unsupportedParameters narrow what its format honours", () => {
    expect(supportedParameters({ format: 'openai' })).toContain('tools');
    const host = { format: 'openai' as const, unsupportedParameters: ['tools', 'response_format'] };
    expect(supportedParameters(host)).not.toContain('tools');
    expect(supportedParameters(host)).not.toContain('response_format');
    expect(supportedParameters(host)).toContain('temperature');
  });

  it('names the first requested parameter a provider does not honour', () => {
    const host = { format: 'openai' as const, unsupportedParameters: ['response_format'] };
    expect(unsupportedParameter(host, requestedParameters({ model: 'm', messages: [], temperature: 0.2 }))).toBeUndefined();
    expect(unsupportedParameter(host, requestedParameters({ model: 'm', response_format: { type: 'json_object' } }))).toBe('response_format');
    // The Responses API's `text` is response_format; Anthropic's format drops seed.
    expect(unsupportedParameter(host, requestedParameters({ text: { format: { type: 'json_object' } } }))).toBe('response_format');
    expect(unsupportedParameter({ format: 'anthropic' }, ['seed'])).toBe('seed');
  });
});
