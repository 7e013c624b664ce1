import { describe, expect, it } from 'vitest';
import { splitHeaderList } from '../../../src/core/split-header-list.js';

describe('splitHeaderList', () => {
  it('reads one comma-separated header into its items, trimmed, empty ones dropped', () => {
    expect(splitHeaderList(' a-1 ,b-2,, c-3 ')).toEqual(['a-1', 'b-2', 'c-3']);
  });

  it('reads a header sent several times as one list', () => {
    expect(splitHeaderList(['a-1, b-2', 'c-3'])).toEqual(['a-1', 'b-2', 'c-3']);
  });

  it('reads an absent or blank header as no items', () => {
    expect(splitHeaderList(undefined)).toEqual([]);
    expect(splitHeaderList(' , ')).toEqual([]);
  });
});
