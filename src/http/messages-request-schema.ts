/**
 * What POST /v1/messages and /v1/messages/count_tokens accept: the JSON Schemas are defined with the
 * request types they derive in formats/anthropic-messages.ts, and re-exported here for the body stage.
 */
export { countTokensRequestSchema, messagesRequestSchema } from '../formats/anthropic-messages.js';
