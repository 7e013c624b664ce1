/**
 * What /v1/chat/completions, /v1/responses, /v1/embeddings and /v1/rerank accept: the JSON Schemas are defined with the request
 * types they derive, in formats/openai-chat.ts, formats/openai-responses-request.ts and formats/embeddings.ts, and re-exported
 * here for the body stage.
 */
export { chatRequestSchema } from '../formats/openai-chat.js';
export { responsesRequestSchema } from '../formats/openai-responses-request.js';
export { MAX_OUTPUT_TOKENS } from '../formats/wire-schema.js';
export { embeddingsRequestSchema, rerankRequestSchema, EMBEDDINGS_FIELDS, RERANK_FIELDS } from '../formats/embeddings.js';
