import type { ChatToolCallDelta } from '../../formats/openai-chat.js';
import { isRecord } from './is-record.js';

interface ToolCallState {
  /** Position in the final `tool_calls` array the client assembles. */
  downstreamIndex: number;
  id: string | undefined;
  name: string | undefined;
  hasArguments: boolean;
}

/**
 * Reassigns streamed tool-call fragments of one choice to the calls they belong to (wire-formats §7.2).
 * Accumulating by `index` alone merges distinct calls on some hosts, so:
 * - a fragment carrying an id not seen before starts a new call, even if its index repeats
 *   (quirk(ollama): every parallel call arrives whole with `index: 0`);
 * - a fragment with a known id continues that call (some hosts repeat the id on every fragment);
 * - a fragment naming a different function after arguments began starts a new call;
 * - a fragment without id and index continues the call touched last
 *   (quirk(gemini-openai-endpoint): `index` omitted or unstable);
 * - downstream indices are renumbered densely 0..n-1 in order of appearance.
 */
export class ToolCallRepair {
  #count = 0;
  readonly #byId = new Map<string, ToolCallState>();
  readonly #byUpstreamIndex = new Map<number, ToolCallState>();
  #current: ToolCallState | undefined;

  /** How many distinct calls were seen so far. */
  get callCount(): number {
    return this.#count;
  }

  repair(fragments: readonly unknown[]): ChatToolCallDelta[] {
    const repaired: ChatToolCallDelta[] = [];
    for (const fragment of fragments) {
      if (!isRecord(fragment)) continue;
      const call = this.#resolve(fragment);
      repaired.push({ ...fragment, index: call.downstreamIndex } as ChatToolCallDelta);
    }
    return repaired;
  }

  #resolve(fragment: Record<string, unknown>): ToolCallState {
    const id = typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : undefined;
    const upstreamIndex = typeof fragment.index === 'number' ? fragment.index : undefined;
    const fn = isRecord(fragment.function) ? fragment.function : {};
    const name = typeof fn.name === 'string' && fn.name !== '' ? fn.name : undefined;

    let call = this.#find(id, upstreamIndex);
    if (call !== undefined && id === undefined && name !== undefined && call.hasArguments && call.name !== name) call = undefined;
    call ??= this.#start(id);

    if (id !== undefined && call.id === undefined) {
      call.id = id;
      this.#byId.set(id, call);
    }
    if (upstreamIndex !== undefined) this.#byUpstreamIndex.set(upstreamIndex, call);
    call.name ??= name;
    if (typeof fn.arguments === 'string' && fn.arguments !== '') call.hasArguments = true;
    this.#current = call;
    return call;
  }

  #find(id: string | undefined, upstreamIndex: number | undefined): ToolCallState | undefined {
    if (id !== undefined) {
      const known = this.#byId.get(id);
      if (known !== undefined) return known;
      // An unseen id on an index whose call has no id yet: that call's id simply arrived late.
      const atIndex = upstreamIndex === undefined ? undefined : this.#byUpstreamIndex.get(upstreamIndex);
      return atIndex !== undefined && atIndex.id === undefined ? atIndex : undefined;
    }
    if (upstreamIndex !== undefined) return this.#byUpstreamIndex.get(upstreamIndex);
    return this.#current;
  }

  #start(id: string | undefined): ToolCallState {
    const call: ToolCallState = { downstreamIndex: this.#count, id, name: undefined, hasArguments: false };
    this.#count += 1;
    if (id !== undefined) this.#byId.set(id, call);
    return call;
  }
}
