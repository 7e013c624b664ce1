/**
 * The official openai SDK rebuilds a response from stream events (`responses.stream()`), indexing items
 * by output_index and parts by content_index. Replaying our events through its accumulator proves the
 * incremental events alone describe the same output the terminal event reports.
 */
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { Response as SdkResponse, ResponseStreamEvent as SdkStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import type { ResponsesStreamEvent } from '../../../../src/formats/openai-responses.js';
import { terminalResponse } from './responses-fixtures.js';
import { replay, STREAM_SCENARIOS } from './stream-scenarios.js';

function accumulate(events: ResponsesStreamEvent[]): SdkResponse | undefined {
  let snapshot: SdkResponse | undefined;
  for (const event of events) snapshot = accumulateResponse(event as unknown as SdkStreamEvent, snapshot);
  return snapshot;
}

/** Item status only changes in output_item.done, which the incremental replay leaves out on purpose. */
function withoutStatus(items: unknown[]): unknown[] {
  return items.map((item) => {
    const { status: _status, ...rest } = item as Record<string, unknown>;
    return rest;
  });
}

describe('openai SDK stream accumulation', () => {
  it.each(Object.entries(STREAM_SCENARIOS))('rebuilds the final output of the %s stream from the incremental events', (_name, scenario) => {
    const events = replay(scenario);
    const final = terminalResponse(events);
    const incremental = events.slice(0, -1).filter((event) => event.type !== 'response.output_item.done');
    const rebuilt = accumulate(incremental);
    expect(withoutStatus(rebuilt?.output ?? [])).toStrictEqual(withoutStatus(final.output));
    expect(rebuilt?.output_text).toBe(final.output_text);
  });

  it.each(Object.entries(STREAM_SCENARIOS))('accepts the whole %s stream and ends on the terminal response', (_name, scenario) => {
    const events = replay(scenario);
    expect(accumulate(events)).toStrictEqual(terminalResponse(events));
  });
});
