/**
 * A tool call item of a synthesized stream. Function calls stream their arguments as they arrive.
 * A custom tool's input reaches us wrapped in JSON (`{"input": "…"}`), which can only be unwrapped once
 * complete, so its input is sent in one delta at close; Codex acts on output_item.done anyway.
 */
import type { ResponseCustomToolCall, ResponseFunctionCall, ResponsesItemStatus } from '../../formats/openai-responses.js';
import type { EmitEvent, StreamItem } from './stream-item.js';
import { toolCallItem, type ToolCallIdentity } from './tool-call-item.js';

export class StreamToolCallItem implements StreamItem {
  private arguments = '';

  constructor(
    private readonly call: ToolCallIdentity,
    readonly outputIndex: number,
    private readonly emit: EmitEvent,
  ) {
    emit({ type: 'response.output_item.added', output_index: outputIndex, item: toolCallItem(call, '', 'in_progress') });
  }

  get hasArguments(): boolean {
    return this.arguments !== '';
  }

  appendArguments(delta: string): void {
    if (delta === '') return;
    this.arguments += delta;
    if (!this.call.custom) {
      this.emit({ type: 'response.function_call_arguments.delta', ...this.location(), delta });
    }
  }

  close(status: ResponsesItemStatus): ResponseFunctionCall | ResponseCustomToolCall {
    const item = toolCallItem(this.call, this.arguments, status);
    if (item.type === 'custom_tool_call') {
      if (item.input !== '') this.emit({ type: 'response.custom_tool_call_input.delta', ...this.location(), delta: item.input });
      this.emit({ type: 'response.custom_tool_call_input.done', ...this.location(), input: item.input });
    } else {
      this.emit({ type: 'response.function_call_arguments.done', ...this.location(), name: item.name, arguments: item.arguments });
    }
    this.emit({ type: 'response.output_item.done', output_index: this.outputIndex, item });
    return item;
  }

  private location(): { item_id: string; output_index: number } {
    return { item_id: this.call.itemId, output_index: this.outputIndex };
  }
}
