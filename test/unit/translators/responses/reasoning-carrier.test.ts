/** The reasoning item's encrypted_content carries reasoning_details through Responses clients unchanged. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReasoningDetail } from '../../../../src/formats/openai-chat.js';
import { decodeReasoningDetails, encodeReasoningDetails, mergeReasoningDetails } from '../../../../src/formats/reasoning-carrier.js';
import { responsesInputToMessages } from '../../../../src/translators/responses/responses-input-to-messages.js';
import { buildResponsesRequest } from '../../../../src/providers/openai/build-responses-request.js';

const detail = fc.record(
  { type: fc.constantFrom('reasoning.text' as const, 'reasoning.encrypted' as const), text: fc.string(), signature: fc.string(), data: fc.string(), id: fc.string(), format: fc.string(), index: fc.nat() },
  { requiredKeys: ['type'] },
);

describe('reasoning carrier', () => {
  it('property: decode(encode(details)) is the details, byte for byte', () => {
    fc.assert(fc.property(fc.array(detail, { maxLength: 5 }), (details) => {
      expect(decodeReasoningDetails(encodeReasoningDetails(details))).toEqual(details);
    }));
  });

  it("is not OpenAI's own encrypted content, nor garbage", () => {
    expect(decodeReasoningDetails('gAAAAABo-openai-encrypted')).toBeUndefined();
    expect(decodeReasoningDetails('router-rd1.!!!')).toBeUndefined();
    expect(decodeReasoningDetails(null)).toBeUndefined();
  });

  it('joins the stream pieces of one block', () => {
    const pieces: ReasoningDetail[] = [
      { type: 'reasoning.text', text: 'a', format: 'f', index: 0 },
      { type: 'reasoning.text', text: 'b', format: 'f', index: 0 },
      { type: 'reasoning.text', text: '', signature: 'S', format: 'f', index: 0 },
      { type: 'reasoning.encrypted', data: 'D', format: 'f', index: 1 },
    ];
    expect(mergeReasoningDetails(pieces)).toEqual([
      { type: 'reasoning.text', text: 'ab', signature: 'S', format: 'f', index: 0 },
      { type: 'reasoning.encrypted', data: 'D', format: 'f', index: 1 },
    ]);
  });

  it('goes back on the assistant message the following call joins', () => {
    const details: ReasoningDetail[] = [{ type: 'reasoning.text', text: 't', signature: 's', format: 'anthropic-claude-v1', index: 0 }];
    const messages = responsesInputToMessages([
      { role: 'user', content: 'q' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: encodeReasoningDetails(details) },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'r' },
    ] as never);
    expect(messages[1]).toMatchObject({ role: 'assistant', reasoning_details: details, tool_calls: [{ id: 'c1' }] });
  });

  it("never reaches a native Responses host, while OpenAI's own reasoning items do", () => {
    const ctx = { provider: { baseUrl: 'https://api.openai.com/v1', headers: {} } as never, upstreamModel: 'gpt-5', credential: 'k', stream: false };
    const input = [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: encodeReasoningDetails([]) }, { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAAA-openai' }];
    const sent = JSON.parse(buildResponsesRequest({ model: 'm', input }, ctx).body);
    expect(sent.input.map((item: { id: string }) => item.id)).toEqual(['rs_2']);
  });
});
