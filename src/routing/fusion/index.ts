/** Fusion: judged multi-model synthesis (docs/routing.md#fusion). The server imports it from here. */
export { completeFusion, streamFusion, type FusionResult, type FusionRun } from './fusion-pipeline.js';
export { completeWithFusionTool, hasFusionTool, FUSION_FUNCTION_NAME, FUSION_TOOL_TYPE, type FusionToolRun } from './fusion-server-tool.js';
export { FusionTrace, sumUsage, type FusionCall, type FusionCallStatus, type FusionRole } from './fusion-trace.js';
export type { FusionAnalysis } from './fusion-analysis.js';
export { fusionAccessProblem } from './fusion-access.js';
