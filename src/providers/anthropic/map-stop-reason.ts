import type { ChatFinishReason } from '../../formats/openai-chat.js';

/**
 * Anthropic stop_reason → chat finish_reason (wire-formats §6.4). pause_turn (a server tool paused the
 * turn) ends the chat turn normally; unknown future reasons are treated as a natural end.
 */
export function mapStopReason(stopReason: string | null | undefined): ChatFinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}
