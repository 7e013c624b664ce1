/**
 * Cluster mode's watchdog (`listen.watchdogTimeoutMs`): a worker that hangs without dying (SIGSTOP
 * stands in for a blocked event loop) is killed by the primary once it misses its heartbeats for the
 * timeout, within a second more, and replaced; a worker merely waiting on a slow upstream is spared.
 * In the timed group (vitest.config.ts), alone on the machine: the bound is on time, and a primary kept
 * from a core for half the timeout by design gives every worker a fresh timeout instead of judging. In
 * the parallel group a loaded CI run did not see the hung worker reported killed within 7 s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SpawnedRouter } from '../security/process-harness.js';
import {
  ANSWER_BOUND_MS,
  CLIENTS,
  liveWorkerPids,
  loggedAt,
  postOnItsOwnConnection,
  messages,
  sleep,
  startCluster,
  watchdogKills,
  type Outcome,
} from './cluster-death-harness.js';
import { waitFor } from './router-harness.js';

/** SIGKILL for a process that may be gone already (the watchdog may have ended it after a wait timed out). */
function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

describe('cluster mode: the watchdog and a hung worker', { timeout: 120_000 }, () => {
  let router: SpawnedRouter | undefined;
  afterEach(async () => {
    await router?.close();
    router = undefined;
  });

  it('replaces a hung worker (SIGSTOP) within the watchdog timeout + 1 s, its clients answered or reset within a second of the kill, and spares a worker waiting on a slow upstream', async () => {
    const WATCHDOG_MS = 2000;
    router = await startCluster((doc) => void (doc.listen = { ...doc.listen, watchdogTimeoutMs: WATCHDOG_MS }));
    const { key } = await router.account('pro');
    await waitFor(() => liveWorkerPids(router!).length === 2, 10_000);

    // Long work that is not a hang: answers slower than the timeout, with both workers' loops free.
    router.fakes.openai.setReply({ latencyMs: WATCHDOG_MS + 1000 });
    const slow = await Promise.all(Array.from({ length: 4 }, () => postOnItsOwnConnection(router!.url, key, 3 * WATCHDOG_MS)));
    expect(slow.map((outcome) => (outcome.kind === 'answered' ? outcome.status : outcome.kind))).toEqual([200, 200, 200, 200]);
    expect(watchdogKills(router)).toEqual([]);

    router.fakes.openai.setReply({ latencyMs: 40 });
    const outcomes: Outcome[] = [];
    let loading = true;
    const { url } = router;
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (loading) outcomes.push(await postOnItsOwnConnection(url, key, WATCHDOG_MS + 3000));
    });
    const [hung, healthy] = liveWorkerPids(router) as [number, number];
    let stoppedAt: number;
    let killedAt: number | undefined;
    let replacementListeningAt: number;
    try {
      await sleep(500);
      process.kill(hung, 'SIGSTOP');
      stoppedAt = Date.now();
      await waitFor(() => liveWorkerPids(router!).length === 1, WATCHDOG_MS + 5000);
      killedAt = loggedAt(router, new RegExp(`\\(pid ${hung}\\) sent no heartbeat`))!;
      await waitFor(() => liveWorkerPids(router!).length === 2, 30_000);
      const replacement = liveWorkerPids(router).find((pid) => pid !== healthy);
      replacementListeningAt = loggedAt(router, new RegExp(`\\(pid ${replacement}\\) listening$`))!;
      await sleep(500);
    } finally {
      // Without the watchdog nothing would ever end the stopped worker: the test does, not to leave it behind.
      if (killedAt === undefined) killIfAlive(hung);
      loading = false;
      await Promise.all(clients);
    }

    // Requests pending when the hung worker was killed: settled (answered or reset) within a second of it.
    const pendingAtKill = outcomes.filter((outcome) => outcome.startedAt <= killedAt && outcome.startedAt + outcome.ms >= killedAt);
    const worstAfterKillMs = Math.max(0, ...pendingAtKill.map((outcome) => outcome.startedAt + outcome.ms - killedAt));
    const figures = {
      killedAfterStopMs: killedAt - stoppedAt,
      replacementListeningAfterKillMs: replacementListeningAt - killedAt,
      requests: outcomes.length,
      connectionErrors: outcomes.filter((outcome) => outcome.kind === 'connection error').length,
      pendingAtKill: pendingAtKill.length,
      worstAfterKillMs,
    };
    console.info(`cluster hung worker: ${JSON.stringify(figures)}`);
    expect(watchdogKills(router)).toEqual([expect.stringContaining(`(pid ${hung}) sent no heartbeat for ${WATCHDOG_MS} ms`)]);
    expect(liveWorkerPids(router)).toContain(healthy);
    expect(figures.killedAfterStopMs).toBeGreaterThan(WATCHDOG_MS / 2);
    expect(figures.killedAfterStopMs).toBeLessThan(WATCHDOG_MS + 1000);
    expect(messages(router)).toContainEqual(expect.stringMatching(new RegExp(`\\(pid ${hung}\\) exited \\(signal SIGKILL\\); starting a replacement in 100 ms`)));
    expect(outcomes.filter((outcome) => outcome.kind === 'unanswered')).toEqual([]);
    expect(figures.pendingAtKill).toBeGreaterThan(0);
    expect(figures.worstAfterKillMs).toBeLessThan(1000);
    expect(outcomes.filter((outcome) => outcome.kind === 'answered' && outcome.status !== 200)).toEqual([]);

    // Later requests succeed, on the healthy worker and on the replacement alike.
    const later = await Promise.all(Array.from({ length: 8 }, () => postOnItsOwnConnection(router!.url, key, ANSWER_BOUND_MS)));
    expect(later.map((outcome) => (outcome.kind === 'answered' ? outcome.status : outcome.kind))).toEqual(Array.from({ length: 8 }, () => 200));
  });
});
