import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/runtime/create-logger.js';

describe('createLogger', () => {
  it('writes one JSON object per line, with time, level, tag, message and the fields of the line', () => {
    const written: string[] = [];
    const logger = createLogger({ level: 'info', format: 'json', isTerminal: false, write: (line) => void written.push(line) });
    logger.warn('upstream attempt failed', { requestId: 'req_1', provider: 'openai' });
    logger.info('count %d', 3);
    logger.debug('hidden at info');
    expect(written.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    const [first, second] = written.map((line) => JSON.parse(line));
    expect(first).toEqual({ time: expect.any(String), level: 'warn', tag: 'router', msg: 'upstream attempt failed', requestId: 'req_1', provider: 'openai' });
    expect(second).toMatchObject({ level: 'info', msg: 'count 3' });
    expect(written).toHaveLength(2);
  });

  it('honours the level: debug shows debug lines, silent shows nothing', () => {
    const written: string[] = [];
    createLogger({ level: 'debug', format: 'json', isTerminal: false, write: (line) => void written.push(line) }).debug('seen');
    createLogger({ level: 'silent', format: 'json', isTerminal: false, write: (line) => void written.push(line) }).error('not seen');
    expect(written.map((line) => JSON.parse(line).msg)).toEqual(['seen']);
  });

  it('auto is JSON off a terminal', () => {
    const written: string[] = [];
    createLogger({ level: 'info', format: 'auto', isTerminal: false, write: (line) => void written.push(line) }).info('x');
    expect(JSON.parse(written[0]!).msg).toBe('x');
  });
});
