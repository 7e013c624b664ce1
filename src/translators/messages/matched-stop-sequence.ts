/**
 * Which of the client's `stop_sequences` ended a chat upstream's answer, when the upstream says so.
 * quirk(vllm): vLLM reports the matched string as the choice's `stop_reason`, SGLang as `matched_stop`
 * (both beside `finish_reason: "stop"`). OpenAI and Gemini do not: they report a natural end and a
 * matched sequence alike (`stop`, `STOP`) and leave the sequence out of the text, so nothing they send
 * tells the two apart, and their answers stay `end_turn`.
 */
export function matchedStopSequence(choice: object | undefined, requested: readonly string[] | undefined): string | null {
  if (!choice || !requested || requested.length === 0) return null;
  const { finish_reason: finish, stop_reason: vllm, matched_stop: sglang } = choice as { finish_reason?: unknown; stop_reason?: unknown; matched_stop?: unknown };
  if (finish !== 'stop') return null;
  for (const reported of [vllm, sglang]) {
    if (typeof reported === 'string' && requested.includes(reported)) return reported;
  }
  return null;
}
