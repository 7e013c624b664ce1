import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../../src/core/errors.js';
import { rejectStatefulFields } from '../../../../src/translators/responses/reject-stateful-fields.js';

function refusal(body: Record<string, unknown>): RouterError | undefined {
  try {
    rejectStatefulFields({ model: 'router/frontier', input: 'Hi', ...body });
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw error;
  }
  return undefined;
}

describe('rejectStatefulFields', () => {
  it.each([
    ['previous_response_id', { previous_response_id: 'resp_123' }],
    ['conversation', { conversation: 'conv_1' }],
    ['conversation', { conversation: { id: 'conv_1' } }],
    ['prompt', { prompt: { id: 'pmpt_1' } }],
    ['background', { background: true }],
    ['input[1]', { input: [{ role: 'user', content: 'Hi' }, { type: 'item_reference', id: 'msg_1' }] }],
  ])('refuses a request that needs stored state, with 400 invalid_request and param %s', (param, body) => {
    const error = refusal(body);
    expect([error?.code, error?.status, error?.param]).toStrictEqual(['invalid_request', 400, param]);
    expect(error?.message).toMatch(/not supported/);
  });

  it('tells the client what to send instead of a previous response', () => {
    expect(refusal({ previous_response_id: 'resp_123' })?.message).toBe(
      'previous_response_id is not supported: resend the whole conversation in `input` (the router is stateless).',
    );
  });

  it('lets through what needs no stored state: store (the router answers it with false), nulls, background false', () => {
    const stateless = { store: true, previous_response_id: null, conversation: null, prompt: null, background: false, input: [{ type: 'message', role: 'user', content: 'Hi' }] };
    expect(refusal(stateless)).toBeUndefined();
  });
});
