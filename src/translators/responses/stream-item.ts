/**
 * One output item being streamed (message, reasoning or tool call). The synthesizer allocates its
 * output_index when the item opens (emitting output_item.added), feeds it deltas, and closes every open
 * item in output_index order when the upstream finishes.
 */
import type { ResponseOutputItem, ResponsesItemStatus, ResponsesStreamEvent } from '../../formats/openai-responses.js';

/** An event before the synthesizer stamps its sequence_number. */
export type StreamEventBody = ResponsesStreamEvent extends infer Event
  ? Event extends ResponsesStreamEvent
    ? Omit<Event, 'sequence_number'>
    : never
  : never;

export type EmitEvent = (event: StreamEventBody) => void;

export interface StreamItem {
  readonly outputIndex: number;
  /** Emits the item's closing events and returns the finished item, exactly as sent in output_item.done. */
  close(status: ResponsesItemStatus): ResponseOutputItem;
}
