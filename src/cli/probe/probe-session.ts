/**
 * Runs probe checks one after another and collects their results. A check passes, fails (with the
 * request it sent, the response it got and what it expected) or is skipped (with why).
 */
import { describeError } from '../../core/describe-error.js';
import type { ProbeResponse } from './probe-response.js';

export type ProbeGroup = 'public' | 'links' | 'authenticated';

export interface ProbeResult {
  group: ProbeGroup;
  name: string;
  status: 'pass' | 'fail' | 'skip';
  /** What passed, or why it was skipped, or what went wrong. */
  detail: string;
  /** For failures: the request, the response status/code, and what was expected. */
  failure?: { request: string; response: string; expected: string };
  ms: number;
}

/** A check's verdict against a response: what it expected and did not get. */
export class ProbeFailure extends Error {
  constructor(
    readonly expected: string,
    readonly response?: ProbeResponse,
    /** The request, when there was no response to carry it. */
    readonly request?: string,
    cause?: string,
  ) {
    super(cause === undefined ? `expected ${expected}` : `expected ${expected}, but ${cause}`);
    this.name = 'ProbeFailure';
  }
}

/** Throw a ProbeFailure unless the condition holds. */
export function expectThat(condition: unknown, expected: string, response?: ProbeResponse): asserts condition {
  if (!condition) throw new ProbeFailure(expected, response);
}

export class ProbeSession {
  readonly results: ProbeResult[] = [];

  async check(group: ProbeGroup, name: string, run: () => Promise<string>): Promise<boolean> {
    const started = performance.now();
    try {
      const detail = await run();
      this.results.push({ group, name, status: 'pass', detail, ms: performance.now() - started });
      return true;
    } catch (error) {
      const failure =
        error instanceof ProbeFailure
          ? {
              request: error.response?.request ?? error.request ?? '(none)',
              response: error.response ? describeResponse(error.response) : '(no response)',
              expected: error.expected,
            }
          : { request: '(see detail)', response: '(no response)', expected: 'an answer' };
      this.results.push({ group, name, status: 'fail', detail: describeError(error), failure, ms: performance.now() - started });
      return false;
    }
  }

  skip(group: ProbeGroup, name: string, reason: string): void {
    this.results.push({ group, name, status: 'skip', detail: reason, ms: 0 });
  }
}

/** `STATUS code` of a response, for reports. */
export function describeResponse(response: ProbeResponse): string {
  const code = response.json?.error?.code;
  return `${response.status}${typeof code === 'string' ? ` ${code}` : ''}`;
}
