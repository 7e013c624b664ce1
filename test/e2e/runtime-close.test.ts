/**
 * The composition root's close() stops every timer it started and closes every handle it opened: the
 * full runtime (SQLite in a temp dir, the account app on, Stripe billing on against the fake Stripe,
 * the alert sweep on, the HTTP server listening and answering) is opened and shut down, and nothing it
 * created is left behind.
 *
 * Two views, because one is not enough: process.getActiveResourcesInfo() lists the handles and ref'd
 * timers keeping the loop alive, but not unref'd timers (the status history's and the billing sweep's
 * are unref'd); an async hook sees every Timeout and handle created while the runtime ran, and whether
 * it was destroyed. Only resources created from the project's own src/ count (the test runner has
 * timers of its own).
 */
import { createHook } from 'node:async_hooks';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeFake, type StripeFake } from '../fakes/stripe-fake.js';
import { BILLING_ENV, billingPatch } from './billing-harness.js';
import type { ClusterChannel } from '../../src/stores/cluster/cluster-channel.js';
import { startTestRouter, type TestRouter } from './router-harness.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** Resource types that hold the process: timers, sockets, servers, file and DNS requests. */
const TRACKED = /^(Timeout|Immediate|TCPWRAP|TCPSERVERWRAP|PIPEWRAP|PIPESERVERWRAP|TTYWRAP|FSEVENTWRAP|STATWATCHER|FSREQCALLBACK|GETADDRINFOREQWRAP|UDPWRAP|PROCESSWRAP|WORKER)$/i;

function countByType(resources: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of resources) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** The types that have more active entries now than in `before`. */
function grownSince(before: Map<string, number>): string[] {
  const now = countByType(process.getActiveResourcesInfo());
  return [...now].filter(([type, count]) => count > (before.get(type) ?? 0)).map(([type, count]) => `${type}: ${before.get(type) ?? 0} → ${count}`);
}

/** GET without keep-alive (no client socket or undici timer survives the call). */
function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = request(url, { agent: false, headers: { connection: 'close', ...headers } }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
    call.once('error', reject);
    call.end();
  });
}

async function settled<T>(read: () => T[], timeoutMs = 3000): Promise<T[]> {
  const until = Date.now() + timeoutMs;
  let left = read();
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = read();
  }
  return left;
}

describe('the runtime closes what it opened', () => {
  let stripe: StripeFake;
  beforeAll(async () => {
    stripe = await startStripeFake();
  });
  afterAll(async () => {
    await stripe.close();
  });

  /** Opens the runtime with `start`, sends traffic through each side of the app, closes it, and finds nothing it made alive. */
  async function expectNothingLeftBy(start: () => Promise<TestRouter>) {
    const before = countByType(process.getActiveResourcesInfo());
    const alive = new Map<number, { type: string; stack: string }>();
    const previousLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 60;
    const hook = createHook({
      init(asyncId, type) {
        if (!TRACKED.test(type)) return;
        const stack = new Error().stack ?? '';
        if (stack.includes(SRC)) alive.set(asyncId, { type, stack });
      },
      destroy(asyncId) {
        alive.delete(asyncId);
      },
    }).enable();
    try {
      const router = await start();
      const { runtime } = router.server;
      expect(runtime.config.server.app.enabled).toBe(true);
      expect(runtime.app.billing).not.toBeNull();
      expect(await get(`${router.url}/healthz`)).toBe(200);
      expect(await get(`${router.url}/status`, { accept: 'text/html' })).toBe(200);
      expect(await get(`${router.url}/app/signin`, { accept: 'text/html' })).toBe(200);
      expect(alive.size).toBeGreaterThan(0); // the hook sees what the runtime made, so an empty list below means something
      await router.close();

      const leftover = await settled(() => [...alive.values()]);
      expect(leftover.map(({ type, stack }) => `${type} created at\n${stack.split('\n').filter((line) => line.includes(SRC)).join('\n')}`)).toEqual([]);
      expect(await settled(() => grownSince(before))).toEqual([]);
    } finally {
      hook.disable();
      Error.stackTraceLimit = previousLimit;
    }
  }

  it('leaves no timer, socket or server behind after close(), with the app, billing and alerts on', async () => {
    await expectNothingLeftBy(() => startTestRouter({ env: BILLING_ENV, patch: billingPatch(stripe.url) }));
  });

  it('as a cluster worker too (measured routing figures shared with the primary on a timer)', async () => {
    // A primary that never answers: the pages asked for here need none of its decisions.
    const primary: ClusterChannel = { send: () => undefined, onMessage: () => () => undefined };
    await expectNothingLeftBy(() => startTestRouter({ env: BILLING_ENV, patch: billingPatch(stripe.url), build: { primary } }));
  });
});
