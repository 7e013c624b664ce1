/**
 * The assistant message item of a synthesized stream. Text and refusal each get their own content part,
 * numbered in the order they first appear; parts are closed (…done, content_part.done) before the item.
 */
import type { ResponseOutputContentPart, ResponseOutputMessage, ResponsesItemStatus } from '../../formats/openai-responses.js';
import type { EmitEvent, StreamItem } from './stream-item.js';

interface OpenPart {
  kind: 'output_text' | 'refusal';
  contentIndex: number;
  value: string;
}

export class StreamMessageItem implements StreamItem {
  private readonly parts: OpenPart[] = [];

  constructor(
    private readonly id: string,
    readonly outputIndex: number,
    private readonly emit: EmitEvent,
  ) {
    emit({ type: 'response.output_item.added', output_index: outputIndex, item: this.item('in_progress', []) });
  }

  appendText(delta: string): void {
    const part = this.part('output_text');
    part.value += delta;
    this.emit({ type: 'response.output_text.delta', ...this.location(part), delta, logprobs: [] });
  }

  appendRefusal(delta: string): void {
    const part = this.part('refusal');
    part.value += delta;
    this.emit({ type: 'response.refusal.delta', ...this.location(part), delta });
  }

  close(status: ResponsesItemStatus): ResponseOutputMessage {
    for (const part of this.parts) {
      if (part.kind === 'output_text') {
        this.emit({ type: 'response.output_text.done', ...this.location(part), text: part.value, logprobs: [] });
      } else {
        this.emit({ type: 'response.refusal.done', ...this.location(part), refusal: part.value });
      }
      this.emit({ type: 'response.content_part.done', ...this.location(part), part: finishedPart(part) });
    }
    const item = this.item(status, this.parts.map(finishedPart));
    this.emit({ type: 'response.output_item.done', output_index: this.outputIndex, item });
    return item;
  }

  private part(kind: OpenPart['kind']): OpenPart {
    const existing = this.parts.find((part) => part.kind === kind);
    if (existing) return existing;
    const part: OpenPart = { kind, contentIndex: this.parts.length, value: '' };
    this.parts.push(part);
    this.emit({ type: 'response.content_part.added', ...this.location(part), part: finishedPart(part) });
    return part;
  }

  private location(part: OpenPart): { item_id: string; output_index: number; content_index: number } {
    return { item_id: this.id, output_index: this.outputIndex, content_index: part.contentIndex };
  }

  private item(status: ResponsesItemStatus, content: ResponseOutputContentPart[]): ResponseOutputMessage {
    return { type: 'message', id: this.id, role: 'assistant', status, content };
  }
}

function finishedPart(part: OpenPart): ResponseOutputContentPart {
  return part.kind === 'output_text'
    ? { type: 'output_text', text: part.value, annotations: [], logprobs: [] }
    : { type: 'refusal', refusal: part.value };
}
