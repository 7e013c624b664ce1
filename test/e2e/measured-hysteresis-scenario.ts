/**
 * Measured routing's hysteresis seen from two routing processes (two cluster workers, or two instances
 * sharing Redis): traffic through one turns the order, then brings the two candidates within 20% of
 * each other, where hysteresis holds whichever led last. The process that served none of it must rank
 * the same: with per-process leaders it would keep the candidate it led itself before the turn.
 */
import { expect } from 'vitest';
import type { Fakes } from './router-harness.js';

/** A route of its own, on models no other test routes, so its figures hold only this scenario's answers. */
export const HYSTERESIS_ROUTE = {
  id: 'router/measured-pair',
  family: 'frontier',
  description: 'two candidates ranked by measured TTFB',
  quotaWeight: 1,
  retryBudget: 2,
  order: 'measured',
  tiers: [[{ provider: 'openai', model: 'gpt-5' }, { provider: 'anthropic', model: 'claude-opus-4-1' }]],
};

/** What the scenario needs of one routing process. */
export interface RoutingSide {
  /** One chat request on the pair route; resolves to the provider that served it (x-router-upstream). */
  chat(): Promise<string>;
  /** Its /status measured figures. */
  measured(): Promise<Array<{ provider: string; model: string; ttfbMs: number | null; samples: number }>>;
}

const ttfbOf = async (side: RoutingSide, provider: string) => (await side.measured()).find((entry) => entry.provider === provider && isPairModel(entry.model))?.ttfbMs ?? null;
const isPairModel = (model: string) => model === 'gpt-5' || model === 'claude-opus-4-1';
const pairFigures = async (side: RoutingSide) => JSON.stringify((await side.measured()).filter((entry) => isPairModel(entry.model)));

export async function turnAndHold(busy: RoutingSide, idle: RoutingSide, fakes: Fakes): Promise<void> {
  fakes.openai.setReply({ latencyMs: 20 });
  fakes.anthropic.setReply({ latencyMs: 150 });
  // Each unmeasured candidate goes first once, then the faster (openai) leads.
  for (let i = 0; i < 3; i++) await busy.chat();
  expect(await busy.chat()).toBe('openai');
  await expect.poll(async () => (await pairFigures(idle)) === (await pairFigures(busy)), { timeout: 5000, interval: 100 }).toBe(true);
  // The idle side ranks once too, so that openai led there as well.
  expect(await idle.chat()).toBe('openai');
  // Its 20 ms sample reaches the shared figures with its next exchange, folded in as the newest. Waited
  // for here: arriving after the slow-down below, it would pull openai's figure back down by a quarter
  // of the gap, under the figure the climb is aimed at, and the busy side would turn back to openai.
  await expect.poll(async () => (await pairFigures(idle)) === (await pairFigures(busy)), { timeout: 5000, interval: 100 }).toBe(true);

  // openai slows down: the busy side turns to anthropic once it is more than 20% faster. (Every latency
  // stays far below the harness's 1500 ms first-byte timeout, also on a loaded machine: a timed-out
  // attempt would fail over and blur the order.)
  fakes.openai.setReply({ latencyMs: 500 });
  let served = 'openai';
  for (let i = 0; i < 10 && served === 'openai'; i++) served = await busy.chat();
  expect(served).toBe('anthropic');

  // anthropic's figure moves to within 10% of openai's (no longer served, so it stays): both candidates
  // are now within the margin, and the busy side holds anthropic, the last to lead there. Aimed at 93 %
  // of openai's figure rather than just under it, so a stall of a loaded machine added to one answer
  // (measured as time to first byte too) cannot by itself push anthropic 20 % past openai.
  const openaiTtfb = (await ttfbOf(busy, 'openai'))!;
  fakes.anthropic.setReply({ latencyMs: Math.max(1, Math.round(openaiTtfb * 0.93)) });
  let ratio = 0;
  for (let i = 0; i < 20; i++) {
    expect(await busy.chat()).toBe('anthropic');
    ratio = (await ttfbOf(busy, 'anthropic'))! / openaiTtfb;
    if (ratio > 0.9 && ratio < 1.1) break;
  }
  expect(ratio).toBeGreaterThan(0.9);
  expect(ratio).toBeLessThan(1.1);

  // Once the idle side holds the same figures, it ranks as the busy one does.
  await expect.poll(async () => (await pairFigures(idle)) === (await pairFigures(busy)), { timeout: 5000, interval: 100 }).toBe(true);
  const before = fakes.openai.requests.length;
  for (let i = 0; i < 3; i++) expect(await idle.chat()).toBe('anthropic');
  expect(await busy.chat()).toBe('anthropic');
  expect(fakes.openai.requests.length).toBe(before);
}
