/** The pure pieces of fusion: the judge's analysis parser and the requests the panel, judge and writer get. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/formats/openai-chat.js';
import { parseAnalysis } from '../../../src/routing/fusion/fusion-analysis.js';
import { flattenToolTraffic, judgeRequest, panelRequest, writerRequest, WRITER_INSTRUCTIONS } from '../../../src/routing/fusion/fusion-prompts.js';

const analysisArb = fc.record(
  {
    consensus: fc.array(fc.string({ maxLength: 40 }), { maxLength: 4 }),
    contradictions: fc.array(fc.string({ maxLength: 40 }), { maxLength: 4 }),
    partialCoverage: fc.array(fc.string({ maxLength: 40 }), { maxLength: 4 }),
    uniqueInsights: fc.array(fc.string({ maxLength: 40 }), { maxLength: 4 }),
    blindSpots: fc.array(fc.string({ maxLength: 40 }), { maxLength: 4 }),
    bestAnswer: fc.integer({ min: 1, max: 8 }),
  },
  { requiredKeys: ['consensus', 'contradictions', 'partialCoverage', 'uniqueInsights', 'blindSpots'] },
);

describe('parseAnalysis', () => {
  it('never throws, whatever a judge answers', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseAnalysis(text)));
  });

  it('reads a valid analysis bare, fenced, or with prose around it, and keeps only the schema’s fields', () => {
    fc.assert(
      fc.property(analysisArb, fc.constantFrom('bare', 'fenced', 'prose'), (analysis, wrapping) => {
        const json = JSON.stringify({ ...analysis, note: 'extra' });
        const text = wrapping === 'bare' ? json : wrapping === 'fenced' ? `\`\`\`json\n${json}\n\`\`\`` : `Here is my analysis: ${json} Hope it helps.`;
        expect(parseAnalysis(text)).toEqual(analysis);
      }),
    );
  });

  it('rejects JSON that misses a required field or has the wrong types', () => {
    expect(parseAnalysis('{"consensus": []}')).toBeUndefined();
    expect(parseAnalysis('{"consensus":"yes","contradictions":[],"partialCoverage":[],"uniqueInsights":[],"blindSpots":[]}')).toBeUndefined();
    expect(parseAnalysis('Answer 2 is best.')).toBeUndefined();
  });
});

describe('fusion requests', () => {
  const chat: ChatRequest = {
    model: 'router/fusion',
    stream: true,
    max_tokens: 5000,
    tools: [{ type: 'router:fusion' }, { type: 'function', function: { name: 'get_weather' } }],
    tool_choice: 'auto',
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21°C' },
      { role: 'user', content: 'And should I bring a coat?' },
    ],
  };

  it('gives the panel the conversation as text, no tools, and the smaller output cap', () => {
    const request = panelRequest(chat, 256);
    expect(request.tools).toBeUndefined();
    expect(request.tool_choice).toBeUndefined();
    expect(request.stream).toBe(false);
    expect(request.max_completion_tokens).toBe(256);
    expect(request.max_tokens).toBeUndefined();
    expect(request.messages.some((message) => message.role === 'tool' || message.tool_calls)).toBe(false);
    expect(JSON.stringify(request.messages)).toContain('Sunny, 21°C');
    expect(JSON.stringify(request.messages)).toContain('get_weather');
    expect(panelRequest({ ...chat, max_tokens: 100 }, 256).max_completion_tokens).toBe(100);
  });

  it('gives the judge every answer, numbered, and no tools', () => {
    const request = judgeRequest(chat, ['first', 'second'], 512);
    expect(request.tools).toBeUndefined();
    const last = String(request.messages.at(-1)?.content);
    expect(last.indexOf('first')).toBeLessThan(last.indexOf('second'));
    expect(last).toContain('number="2"');
  });

  it('gives the writer the client’s request, with the drafts, the analysis and its instructions in front', () => {
    const analysis = { consensus: ['bring a light coat'], contradictions: [], partialCoverage: [], uniqueInsights: [], blindSpots: [] };
    const request = writerRequest(chat, ['draft one', 'draft two'], analysis, true);
    expect(request.tools).toEqual(chat.tools);
    expect(request.messages.slice(1)).toEqual(chat.messages);
    const system = String(request.messages[0]?.content);
    expect(system.startsWith(WRITER_INSTRUCTIONS)).toBe(true);
    for (const text of ['draft one', 'draft two', 'bring a light coat']) expect(system).toContain(text);
    expect(String(writerRequest(chat, ['x'], undefined, false).messages[0]?.content)).toContain('No analysis');
  });

  it('flattens tool traffic without losing a message', () => {
    expect(flattenToolTraffic(chat.messages)).toHaveLength(chat.messages.length);
  });
});
