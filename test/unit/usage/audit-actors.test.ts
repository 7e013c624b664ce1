/** Audit actors as people read them: a person's email, an API key's name, a service as stored; never another account's key. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeActor, loadActorNames } from '../../../src/usage/audit-actors.js';

const store = {
  getPerson: async (id: string) => (id === 'psn_ann' ? { id, email: 'ann@example.com', passwordHash: null, emailVerifiedAt: null, createdAt: '', updatedAt: '' } : null),
  getApiKey: async (id: string) =>
    id === 'key_mgmt' || id === 'key_theirs'
      ? ({ id, accountId: id === 'key_mgmt' ? 'acct_a' : 'acct_b', name: id === 'key_mgmt' ? 'deploy bot' : 'theirs', last4: 'Ab12' } as never)
      : null,
};

describe('audit actors', () => {
  it('names people by email and keys by name, and leaves service actors and unknown ids as they are', async () => {
    const events = ['person:psn_ann', 'key:key_mgmt', 'key:key_theirs', 'person:psn_gone', 'cli', 'system', 'app'].map((actor) => ({ actor }));
    const names = await loadActorNames(store, events, 'acct_a');
    expect(events.map((event) => describeActor(event.actor, names))).toEqual(['ann@example.com', 'API key "deploy bot" …Ab12', 'key:key_theirs', 'person:psn_gone', 'cli', 'system', 'app']);
    // The operator's view (no account) names every account's keys.
    expect(describeActor('key:key_theirs', await loadActorNames(store, events))).toBe('API key "theirs" …Ab12');
  });

  it('never looks up anything but a well-formed person or key id, and shows any other actor unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 80 }), async (actor) => {
        const asked: string[] = [];
        const spy = { getPerson: async (id: string) => (asked.push(id), null), getApiKey: async (id: string) => (asked.push(id), null) };
        const names = await loadActorNames(spy, [{ actor }]);
        expect(describeActor(actor, names)).toBe(actor);
        for (const id of asked) expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      }),
    );
  });
});
