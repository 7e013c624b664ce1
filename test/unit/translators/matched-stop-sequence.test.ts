import { describe, expect, it } from 'vitest';
import { matchedStopSequence } from '../../../src/translators/messages/matched-stop-sequence.js';

describe('matchedStopSequence', () => {
  it('names a requested sequence the host reports beside a stop finish (vLLM, SGLang)', () => {
    expect(matchedStopSequence({ finish_reason: 'stop', stop_reason: 'END' }, ['END'])).toBe('END');
    expect(matchedStopSequence({ finish_reason: 'stop', matched_stop: '###' }, ['END', '###'])).toBe('###');
  });

  it('names nothing when the host does not say, says a token id or a sequence nobody asked for, or the answer ended otherwise', () => {
    expect(matchedStopSequence({ finish_reason: 'stop' }, ['END'])).toBeNull();
    expect(matchedStopSequence({ finish_reason: 'stop', stop_reason: 128009 }, ['END'])).toBeNull();
    expect(matchedStopSequence({ finish_reason: 'stop', stop_reason: '<|eot_id|>' }, ['END'])).toBeNull();
    expect(matchedStopSequence({ finish_reason: 'length', stop_reason: 'END' }, ['END'])).toBeNull();
    expect(matchedStopSequence({ finish_reason: 'stop', stop_reason: 'END' }, undefined)).toBeNull();
  });
});
