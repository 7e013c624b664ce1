/**
 * The playground's key: one per account, the same from every process that has the server secret (two
 * PlaygroundKeys on one store stand in for two workers or instances, asked at the same moment), and the
 * next generation once the operator revokes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPlaygroundKey, KeyService } from '../../../src/accounts/key-service.js';
import { PlaygroundKeys } from '../../../src/app/playground/playground-keys.js';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import { ManualClock } from '../../contracts/store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'router-playground-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = 'playground-test-secret-0123456789';

async function setUp() {
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const store = createSqliteStore({ path: join(dir, `${Math.random().toString(36).slice(2)}.db`), clock });
  await store.migrate();
  const account = await store.createAccount({ email: 'ada@example.com', plan: 'free' }, 'test');
  const service = () => new KeyService({ store, clock, secret: SECRET, cacheTtlMs: 1000 });
  return { store, clock, account, workers: [new PlaygroundKeys(service(), store, clock, SECRET), new PlaygroundKeys(service(), store, clock, SECRET)] as const };
}

describe('playground keys', () => {
  it('two workers asked at the same moment hold the same key, stored once, without expiry, that verifies', async () => {
    const { store, account, workers } = await setUp();
    const [one, two] = await Promise.all([workers[0].keyFor(account.id), workers[1].keyFor(account.id)]);
    expect(one).toBe(two);
    const stored = (await store.listApiKeys(account.id)).filter(isPlaygroundKey);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.expiresAt).toBeNull();
    const verifier = new KeyService({ store, clock: new ManualClock(Date.UTC(2027, 0, 1)), secret: SECRET, cacheTtlMs: 1000 });
    expect(await verifier.verify(`Bearer ${one}`)).toMatchObject({ accountId: account.id, keyId: stored[0]!.id });
  });

  it('after the operator revokes it, the next ask makes the next generation (a worker that held the old one learns of it when told)', async () => {
    const { store, account, workers } = await setUp();
    const first = await workers[0].keyFor(account.id);
    const [record] = (await store.listApiKeys(account.id)).filter(isPlaygroundKey);
    await new KeyService({ store, clock: new ManualClock(0), secret: SECRET, cacheTtlMs: 1000 }).revoke(record!.id, 'cli');
    const next = await workers[1].keyFor(account.id);
    expect(next).not.toBe(first);
    workers[0].forget(account.id);
    expect(await workers[0].keyFor(account.id)).toBe(next);
    // Both keys were made at the same instant, so the listing's order between them is not defined: one revoked, one live.
    expect((await store.listApiKeys(account.id)).filter(isPlaygroundKey).map((key) => key.revokedAt === null).sort()).toEqual([false, true]);
  });
});
