/**
 * The judge stage: the panel's answers in, the structured analysis out. A reply whose JSON fails the
 * schema is asked again once from the same candidate, then the next candidate is tried (CandidateUnfit:
 * no verdict on the provider's health, which answered fine). Each reply received is its own call in the
 * trace, so the tokens of a rejected reply are counted too. No judge at all → undefined, and the writer
 * proceeds without analysis; only the client leaving ends the run here.
 */
import { tokenUsageFromChat } from '../../translators/chat-token-usage.js';
import type { ChatCompletion, ChatRequest } from '../../formats/openai-chat.js';
import { completeChatAttempt } from '../chat-attempts.js';
import { CandidateUnfit, type Candidate } from '../failover.js';
import { parseAnalysis, type FusionAnalysis } from './fusion-analysis.js';
import { judgeRequest } from './fusion-prompts.js';
import type { FusionTrace } from './fusion-trace.js';
import type { PanelAnswer, PanelRun } from './run-panel.js';
import { runStageCall, type FusionDeps } from './run-stage-call.js';
import { stageRoute } from './stage-route.js';

/** Replies asked of one candidate before it is given up on: the first and one retry. */
const REPLIES_PER_CANDIDATE = 2;

export async function runJudge(deps: FusionDeps, run: PanelRun, chat: ChatRequest, answers: readonly PanelAnswer[], trace: FusionTrace): Promise<FusionAnalysis | undefined> {
  const label = `${run.labelPrefix}judge`;
  const request = judgeRequest(chat, answers.map((answer) => answer.text), run.fusion.maxPanelOutputTokens);
  // Set by the attempt that succeeds (the failover loop returns its completion).
  const found: { analysis?: FusionAnalysis } = {};
  let rejected = 0;
  const attempt = async (candidate: Candidate): Promise<ChatCompletion> => {
    for (let reply = 1; ; reply++) {
      const startedAt = deps.clock.now();
      const completion = await completeChatAttempt(deps, candidate, request, run.signal);
      found.analysis = parseAnalysis(completion.choices[0]?.message.content);
      if (found.analysis) return completion;
      trace.record({
        label: `${label}:invalid:${++rejected}`,
        role: 'judge',
        provider: candidate.provider.id,
        model: candidate.target.model,
        status: 'invalid',
        error: 'invalid_judge_output',
        usage: tokenUsageFromChat(completion.usage),
        latencyMs: deps.clock.now() - startedAt,
        retryCount: 0,
        attempts: [],
        credentialSource: candidate.credentialSource,
        used: false,
      });
      if (reply >= REPLIES_PER_CANDIDATE) throw new CandidateUnfit('invalid_judge_output', 'The judge answered with JSON that does not match its schema.');
    }
  };
  const outcome = await runStageCall(
    deps,
    { label, role: 'judge', route: stageRoute(run.route, label, run.fusion.judge), accountId: run.accountId, signal: run.signal, attempt, usageOf: (c) => tokenUsageFromChat(c.usage) },
    trace,
  );
  if (!outcome.ok) {
    if (run.signal.aborted) throw outcome.error;
    return undefined;
  }
  outcome.call.used = true;
  return found.analysis;
}
