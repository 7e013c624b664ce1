/**
 * What the ledger loses when the process dies, measured on a real `router serve` process: on SIGTERM
 * nothing (the queue is written during shutdown); on SIGKILL at most the records of requests that
 * finished within the last flush interval (1 s by default), never older ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import type { LedgerStore } from '../../src/stores/ledger-store.js';
import { openLedgerStore } from '../../src/stores/open-ledger-store.js';
import { usageBackends, type UsageBackend } from './usage-backends.js';
import { PROVIDER_KEYS, TEST_SECRET, frontierOrder, pointProvidersAt, postChat, runCliJson, startFakes, startRouterProcess, writeConfigDir, type Fakes } from './router-harness.js';

const FLUSH_INTERVAL_MS = 1000;

describe.each(usageBackends('durability'))('ledger durability on %s', { timeout: 90_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let ledger: LedgerStore;
  const env = (flushIntervalMs: number) => {
    const configDir = writeConfigDir({
      server: (doc) => {
        backend.server(doc);
        doc.ledger = { flushIntervalMs };
      },
      providers: pointProvidersAt(fakes.urls),
      routes: frontierOrder(['openai']),
    });
    return { ROUTER_CONFIG: configDir, ROUTER_SECRET_KEY: TEST_SECRET, ...backend.env };
  };
  const account = async (processEnv: Record<string, string>) => {
    const { account: created } = await runCliJson(processEnv, 'accounts', 'create', '--email', 'durable@example.com', '--plan', 'max');
    const { key } = await runCliJson(processEnv, 'keys', 'create', '--account', created.id);
    await runCliJson(processEnv, 'provider-keys', 'set', '--account', created.id, '--provider', 'openai', '--key', PROVIDER_KEYS.openai);
    return { accountId: created.id as string, key: key as string };
  };
  const recorded = async (accountId: string, requestIds: readonly string[]) => {
    const records = await ledger.listRequests({ accountId, limit: 500 });
    const ids = new Set(records.map((record) => record.requestId));
    return requestIds.filter((id) => ids.has(id));
  };
  const send = async (baseURL: string, key: string, count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const response = await postChat(baseURL, key);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      ids.push(response.headers.get('x-request-id')!);
    }
    return ids;
  };

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    ledger = await openLedgerStore(backend.env.ROUTER_STORAGE!, systemClock);
    await ledger.migrate();
  });
  afterAll(async () => {
    await ledger?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  it('writes every queued record while shutting down on SIGTERM', async () => {
    // A flush interval far beyond the test: only the shutdown drain can write these.
    const processEnv = env(60_000);
    const router = await startRouterProcess(processEnv);
    const { accountId, key } = await account(processEnv);
    const ids = await send(router.baseURL, key, 5);
    expect(await recorded(accountId, ids)).toEqual([]);
    await router.stop();
    expect((await recorded(accountId, ids)).sort()).toEqual([...ids].sort());
  });

  it(`loses on SIGKILL at most the records of the last ${FLUSH_INTERVAL_MS} ms, never older ones`, async () => {
    const processEnv = env(FLUSH_INTERVAL_MS);
    const router = await startRouterProcess(processEnv);
    const { accountId, key } = await account(processEnv);
    const older = await send(router.baseURL, key, 8);
    // Past one interval (plus room for the batch to commit on a loaded machine), these must be durable.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_INTERVAL_MS + 700));
    const recent = await send(router.baseURL, key, 4);
    // A hard crash: nothing runs on the way down.
    router.signal('SIGKILL');
    await router.exited;
    // The last interval's records may or may not have been written; everything before it was.
    expect((await recorded(accountId, older)).sort()).toEqual([...older].sort());
  });
});
