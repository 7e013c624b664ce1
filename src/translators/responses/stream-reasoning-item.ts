/**
 * The reasoning item of a synthesized stream. Chat upstreams that think out loud send
 * `reasoning_content`; it is surfaced as one summary part because summaries are what Codex and the
 * SDKs render by default.
 */
import type { ReasoningDetail } from '../../formats/openai-chat.js';
import type { ResponseReasoning, ResponsesItemStatus, ResponsesSummaryText } from '../../formats/openai-responses.js';
import { encodeReasoningDetails, mergeReasoningDetails } from '../../formats/reasoning-carrier.js';
import type { EmitEvent, StreamItem } from './stream-item.js';

const SUMMARY_INDEX = 0;

export class StreamReasoningItem implements StreamItem {
  private text = '';
  private readonly details: ReasoningDetail[] = [];

  constructor(
    private readonly id: string,
    readonly outputIndex: number,
    private readonly emit: EmitEvent,
  ) {
    emit({ type: 'response.output_item.added', output_index: outputIndex, item: { type: 'reasoning', id, summary: [], status: 'in_progress' } });
    emit({ type: 'response.reasoning_summary_part.added', ...this.location(), part: summaryText('') });
  }

  append(delta: string): void {
    this.text += delta;
    this.emit({ type: 'response.reasoning_summary_text.delta', ...this.location(), delta });
  }

  /** Signed reasoning pieces, sent whole in the item's encrypted_content when it closes. */
  carry(details: readonly ReasoningDetail[]): void {
    this.details.push(...details);
  }

  close(status: ResponsesItemStatus): ResponseReasoning {
    this.emit({ type: 'response.reasoning_summary_text.done', ...this.location(), text: this.text });
    this.emit({ type: 'response.reasoning_summary_part.done', ...this.location(), part: summaryText(this.text) });
    const carried = this.details.length > 0 ? { encrypted_content: encodeReasoningDetails(mergeReasoningDetails(this.details)) } : {};
    const item: ResponseReasoning = { type: 'reasoning', id: this.id, summary: [summaryText(this.text)], ...carried, status };
    this.emit({ type: 'response.output_item.done', output_index: this.outputIndex, item });
    return item;
  }

  private location(): { item_id: string; output_index: number; summary_index: number } {
    return { item_id: this.id, output_index: this.outputIndex, summary_index: SUMMARY_INDEX };
  }
}

function summaryText(text: string): ResponsesSummaryText {
  return { type: 'summary_text', text };
}
