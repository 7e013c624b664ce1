import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { describeCrash } from '../../../src/core/describe-error.js';
import { installProcessGuard } from '../../../src/runtime/process-guard.js';

describe('the process guard (last resort)', () => {
  it('logs an uncaught exception or rejection once, with its origin, and does not rethrow', () => {
    const target = new EventEmitter();
    const lines: string[] = [];
    const remove = installProcessGuard(target, { error: (line: string) => void lines.push(line) });
    target.emit('uncaughtException', new TypeError("Cannot set properties of null (setting '_isIdle')"), 'uncaughtException');
    target.emit('uncaughtException', new RangeError('boom'), 'unhandledRejection');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^uncaught exception \(kept serving; this is a router bug\): TypeError: Cannot set properties of null/);
    expect(lines[1]).toMatch(/^unhandled promise rejection .*RangeError: boom/);
    remove();
    expect(target.listenerCount('uncaughtException')).toBe(0);
  });

  it('never logs the message of errors that may quote their input', () => {
    let parseError: unknown;
    try {
      JSON.parse('{"prompt": "my secret plans"');
    } catch (error) {
      parseError = error;
    }
    const line = describeCrash(parseError);
    expect(line).toMatch(/^SyntaxError \| at /);
    expect(line).not.toContain('secret plans');
    expect(describeCrash(Object.assign(new Error('password=hunter2'), { code: 'ECONNRESET' }))).toMatch(/^Error \[ECONNRESET\]/);
    expect(describeCrash('text')).toBe('a thrown string');
  });
});
