import type { ConfigFileName } from './config-files.js';
import type { PointedProblem } from './locate-pointer.js';

/**
 * A problem at a position in one config file. A file of its own so that the checks cross-check.ts runs
 * (output-limit-checks.ts, concrete-model-checks.ts) name it without importing cross-check.ts back.
 */
export type FileProblem = PointedProblem & { file: ConfigFileName };
