import { EventEmitter } from 'node:events';
import type { H3Event } from 'h3';
import { describe, expect, it } from 'vitest';
import { RequestState } from '../../../src/http/request-context.js';
import { OutcomeReporter, type RequestObserver, type RequestOutcome } from '../../../src/http/request-outcome.js';

const logger = { warn: () => undefined } as never;

function fakeEvent(finished: boolean): { event: H3Event; res: EventEmitter } {
  const res = Object.assign(new EventEmitter(), { writableFinished: finished, headersSent: true, statusCode: 200 });
  return { event: { path: '/v1/chat/completions?x=1', node: { res } } as unknown as H3Event, res };
}

function recording(): { observer: RequestObserver; seen: RequestOutcome[] } {
  const seen: RequestOutcome[] = [];
  return { observer: { onRequestFinished: (outcome) => void seen.push(outcome) }, seen };
}

describe('the outcome reporter', () => {
  it('reports once, when both the response has closed and the pipeline is done, in either order', () => {
    const { observer, seen } = recording();
    let now = 100;
    const reporter = new OutcomeReporter('model', [observer], () => now, logger);

    const first = fakeEvent(true);
    const closedFirst = reporter.watch(first.event, new RequestState('req_a', 40));
    now = 150;
    first.res.emit('close');
    expect(seen).toHaveLength(0);
    closedFirst?.pipelineDone();

    const second = fakeEvent(false);
    const doneFirst = reporter.watch(second.event, new RequestState('req_b', 60));
    doneFirst?.pipelineDone();
    expect(seen).toHaveLength(1);
    now = 180;
    second.res.emit('close');
    second.res.emit('close');

    expect(seen.map((outcome) => [outcome.requestId, outcome.endpoint, outcome.totalMs, outcome.clientClosed])).toEqual([
      ['req_a', '/v1/chat/completions', 110, false],
      ['req_b', '/v1/chat/completions', 120, true],
    ]);
  });

  it('reads what the request established and what serving it recorded at the time it reports', () => {
    const { observer, seen } = recording();
    const reporter = new OutcomeReporter('model', [observer], () => 10, logger);
    const { event, res } = fakeEvent(true);
    const request = new RequestState('req_c', 0);
    const pending = reporter.watch(event, request);
    request.caller = { keyId: 'key_1', accountId: 'acct_1', management: false };
    request.errorCode = 'all_upstreams_failed';
    res.emit('close');
    pending?.pipelineDone();
    expect(seen[0]).toMatchObject({ accountId: 'acct_1', keyId: 'key_1', errorCode: 'all_upstreams_failed', counted: false, admitted: false });
  });

  it('costs nothing when nobody observes', () => {
    const reporter = new OutcomeReporter('other', [], () => 0, logger);
    const { event, res } = fakeEvent(true);
    expect(reporter.watch(event, new RequestState('req_d', 0))).toBeUndefined();
    expect(res.listenerCount('close')).toBe(0);
  });
});
