/**
 * What a chat request asks of reasoning, from either spelling clients use: OpenAI's `reasoning_effort`
 * or OpenRouter's `reasoning` object (`effort` or `max_tokens`, `exclude`, `enabled`), turned into a
 * thinking budget for the served model from its catalog entry (catalog.yaml `reasoning`). Pure: each
 * adapter that has a thinking switch (Anthropic, Gemini) reads it here, so both agree on every input.
 */
import type { CatalogModel, ModelReasoning } from '../config/types.js';
import type { ChatRequest } from '../formats/openai-chat.js';

export interface RequestedReasoning {
  /** `none` (or `enabled: false`) turns thinking off; undefined with `maxTokens` set. */
  effort: string | undefined;
  /** An explicit budget (OpenRouter's `reasoning.max_tokens`); wins over the effort. */
  maxTokens: number | undefined;
  /** Think, but do not return the thinking text (OpenRouter's `reasoning.exclude`). */
  exclude: boolean;
}

export type ThinkingPlan =
  | { kind: 'off' }
  | { kind: 'budget'; budget: number; exclude: boolean }
  | { kind: 'level'; level: string; exclude: boolean };

const EFFORT_ORDER = ['minimal', 'low', 'medium', 'high', 'xhigh'] as const;
/** Budgets for an effort the model's table leaves out (Anthropic's minimum 1024 at the bottom). */
const DEFAULT_BUDGETS: Readonly<Record<(typeof EFFORT_ORDER)[number], number>> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32000 };

/** Whether reasoning fields may reach this model: not when its catalog entry says it does not reason. */
export function mayReason(model: CatalogModel | undefined): boolean {
  return model === undefined || model.reasoning !== undefined;
}

/** undefined when the request says nothing about reasoning. */
export function requestedReasoning(request: ChatRequest): RequestedReasoning | undefined {
  const options = request.reasoning ?? undefined;
  const effort = options?.effort ?? request.reasoning_effort ?? undefined;
  const maxTokens = options?.max_tokens ?? undefined;
  const exclude = options?.exclude === true;
  if (options?.enabled === false) return { effort: 'none', maxTokens: undefined, exclude };
  if (effort === undefined && maxTokens === undefined) {
    // `{ enabled: true }` or `{ exclude: true }` alone: OpenRouter's default effort.
    return options != null && (options.enabled === true || options.exclude === true) ? { effort: 'medium', maxTokens: undefined, exclude } : undefined;
  }
  return { effort, maxTokens, exclude };
}

/**
 * The thinking the served model gets: undefined when the request asks nothing or the model does not
 * reason (catalog entry without `reasoning`), so the field is dropped. An effort the table lacks takes
 * the nearest one it has (`xhigh`/`max` → the highest, `minimal` → `low`); an unknown word is `medium`.
 */
export function thinkingPlan(request: ChatRequest, model: CatalogModel | undefined): ThinkingPlan | undefined {
  const asked = requestedReasoning(request);
  const table = model?.reasoning;
  if (asked === undefined || table === undefined) return undefined;
  if (asked.effort === 'none' && asked.maxTokens === undefined) return { kind: 'off' };
  if (asked.maxTokens !== undefined && table.levels !== true) return { kind: 'budget', budget: asked.maxTokens, exclude: asked.exclude };
  // A model that takes a level gets the effort nearest to the budget asked (Anthropic's budget_tokens, OpenRouter's max_tokens).
  const effort = asked.maxTokens === undefined ? knownEffort(asked.effort ?? 'medium', table) : effortForBudget(asked.maxTokens, table);
  if (table.levels === true) return { kind: 'level', level: effort === 'xhigh' ? 'high' : effort, exclude: asked.exclude };
  return { kind: 'budget', budget: table[effort] ?? DEFAULT_BUDGETS[effort], exclude: asked.exclude };
}

function knownEffort(effort: string, table: ModelReasoning): (typeof EFFORT_ORDER)[number] {
  if (effort === 'max' || effort === 'xhigh') return table.xhigh === undefined ? 'high' : 'xhigh';
  if (effort === 'minimal') return table.minimal === undefined ? 'low' : 'minimal';
  return (EFFORT_ORDER as readonly string[]).includes(effort) ? (effort as (typeof EFFORT_ORDER)[number]) : 'medium';
}

/**
 * The effort whose budget on this model's table (the defaults for what it leaves out) is nearest to
 * `budget`, on a log scale, for hosts that take an effort by name. Only `low`, `medium` and `high`
 * unless the table lists `minimal` or `xhigh`: those three are the words every reasoning model accepts.
 */
export function effortForBudget(budget: number, table: ModelReasoning | undefined): (typeof EFFORT_ORDER)[number] {
  let nearest: (typeof EFFORT_ORDER)[number] = 'medium';
  let distance = Number.POSITIVE_INFINITY;
  for (const effort of EFFORT_ORDER) {
    const listed = table?.[effort];
    if (listed === undefined && (effort === 'minimal' || effort === 'xhigh')) continue;
    const gap = Math.abs(Math.log(Math.max(1, budget)) - Math.log(Math.max(1, listed ?? DEFAULT_BUDGETS[effort])));
    if (gap < distance) {
      nearest = effort;
      distance = gap;
    }
  }
  return nearest;
}

/**
 * The lowest and highest budgets the model's table names, or undefined when it names none. quirk(gemini):
 * thinkingBudget has a range per model (2.5 Pro 128 to 32768, Flash 0 to 24576) and the catalog's budgets
 * for `minimal` and `xhigh` are set at its ends, so a budget asked outside them is brought inside.
 */
export function budgetBounds(table: ModelReasoning | undefined): { min: number; max: number } | undefined {
  const budgets = EFFORT_ORDER.map((effort) => table?.[effort]).filter((budget): budget is number => budget !== undefined);
  return budgets.length === 0 ? undefined : { min: Math.min(...budgets), max: Math.max(...budgets) };
}
