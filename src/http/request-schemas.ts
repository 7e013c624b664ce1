/**
 * What /v1/chat/completions and /v1/responses accept: the JSON Schemas are defined with the request
 * types they derive, in formats/openai-chat.ts and formats/openai-responses-request.ts, and re-exported
 * here for the body stage.
 */
export { chatRequestSchema } from '../formats/openai-chat.js';
export { responsesRequestSchema } from '../formats/openai-responses-request.js';
export { MAX_OUTPUT_TOKENS } from '../formats/wire-schema.js';
