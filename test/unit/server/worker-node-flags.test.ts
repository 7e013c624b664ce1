import { describe, expect, it } from 'vitest';
import { SEMI_SPACE_FLAG, workerExecArgv } from '../../../src/runtime/cluster/worker-node-flags.js';

describe('cluster workers’ Node flags', () => {
  it('adds the measured semi-space bound to the primary’s own flags', () => {
    expect(workerExecArgv(['--enable-source-maps'], undefined)).toEqual(['--enable-source-maps', SEMI_SPACE_FLAG]);
    expect(workerExecArgv([], '')).toEqual([SEMI_SPACE_FLAG]);
  });

  it('keeps a semi-space size the operator chose, on the command line or in NODE_OPTIONS', () => {
    expect(workerExecArgv(['--max-semi-space-size=32'], undefined)).toEqual(['--max-semi-space-size=32']);
    expect(workerExecArgv(['--max_semi_space_size', '4'], undefined)).toEqual(['--max_semi_space_size', '4']);
    expect(workerExecArgv(['--trace-gc'], '--max-old-space-size=512 --max-semi-space-size=2')).toEqual(['--trace-gc']);
  });

  it('is not fooled by a similar flag', () => {
    expect(workerExecArgv(['--max-old-space-size=512'], '--semi-space-growth-factor=2')).toEqual(['--max-old-space-size=512', SEMI_SPACE_FLAG]);
  });
});
