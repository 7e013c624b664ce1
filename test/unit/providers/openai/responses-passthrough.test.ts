import { describe, expect, it } from 'vitest';
import { buildResponsesRequest } from '../../../../src/providers/openai/build-responses-request.js';
import { rewriteResponsesModel } from '../../../../src/providers/openai/rewrite-responses-model.js';
import { openaiContext } from './openai-context.js';

describe('buildResponsesRequest', () => {
  it('posts the client body to /responses with the upstream model and the credential', () => {
    const body = { model: 'router/frontier', input: 'Hi', store: false, tools: [{ type: 'router:fusion' }, { type: 'function', name: 'f' }], stream: true };
    const request = buildResponsesRequest(body, openaiContext({}, { stream: true }));
    expect(request.url).toBe('https://api.openai.com/v1/responses');
    expect(request.headers.authorization).toBe('Bearer sk-test-credential');
    expect(request.headers.accept).toBe('text/event-stream');
    expect(JSON.parse(request.body)).toEqual({ model: 'gpt-4o-mini', input: 'Hi', store: false, tools: [{ type: 'function', name: 'f' }], stream: true });
    expect(body.model).toBe('router/frontier');
  });

  it('omits stream for non-stream requests', () => {
    const request = buildResponsesRequest({ model: 'router/frontier', input: 'Hi', stream: false }, openaiContext());
    expect(JSON.parse(request.body)).toEqual({ model: 'gpt-4o-mini', input: 'Hi', store: false });
  });

  it.each([true, null, undefined])('asks the host not to store the response when the client sent store: %s', (store) => {
    const request = buildResponsesRequest({ model: 'router/frontier', input: 'Hi', store }, openaiContext());
    expect(JSON.parse(request.body).store).toBe(false);
  });
});

describe('rewriteResponsesModel', () => {
  it('rewrites the model of a Response object without mutating it', () => {
    const response = { id: 'resp_1', object: 'response', model: 'gpt-4o-mini-2024-07-18', output: [] };
    expect(rewriteResponsesModel(response, 'router/frontier')).toEqual({ ...response, model: 'router/frontier' });
    expect(response.model).toBe('gpt-4o-mini-2024-07-18');
  });

  it('rewrites response.model inside stream events that embed the response', () => {
    const event = { type: 'response.completed', sequence_number: 9, response: { id: 'resp_1', object: 'response', model: 'gpt-4o-mini' } };
    expect(rewriteResponsesModel(event, 'router/frontier')).toEqual({ ...event, response: { ...event.response, model: 'router/frontier' } });
  });

  it('leaves other events and non-objects unchanged', () => {
    const delta = { type: 'response.output_text.delta', sequence_number: 4, delta: 'Hi', item_id: 'msg_1' };
    expect(rewriteResponsesModel(delta, 'router/frontier')).toBe(delta);
    expect(rewriteResponsesModel('[DONE]', 'router/frontier')).toBe('[DONE]');
  });
});
