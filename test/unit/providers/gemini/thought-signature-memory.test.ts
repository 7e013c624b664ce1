import { describe, expect, it } from 'vitest';
import { createThoughtSignatureMemory } from '../../../../src/providers/gemini/index.js';

describe('thought signature memory', () => {
  it('returns what was stored under a tool-call id and nothing for unknown ids', () => {
    const memory = createThoughtSignatureMemory();
    memory.set('call_1', 'sig-1');
    expect(memory.get('call_1')).toBe('sig-1');
    expect(memory.get('call_2')).toBeUndefined();
  });

  it('stays bounded by evicting the least recently used entry', () => {
    const memory = createThoughtSignatureMemory({ maxEntries: 2 });
    memory.set('call_1', 'sig-1');
    memory.set('call_2', 'sig-2');
    memory.get('call_1');
    memory.set('call_3', 'sig-3');
    expect([memory.get('call_1'), memory.get('call_2'), memory.get('call_3')]).toEqual(['sig-1', undefined, 'sig-3']);
  });

  it('forgets entries after their time to live', async () => {
    const memory = createThoughtSignatureMemory({ ttlMs: 20 });
    memory.set('call_1', 'sig-1');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(memory.get('call_1')).toBeUndefined();
  });
});
