/**
 * Who an audit event names, as people read it: the store keeps the actor as an id (`person:<psn_id>` for
 * a person in the app, `key:<key_id>` for an API caller through /v1/keys, or `cli`, `app`, `system`,
 * `stripe`), so the audit stays true when an address changes; the security page and `router audit`
 * show the person's email and the key's name. Ids that no longer resolve are shown as they are.
 */
import type { AuditEvent, Store } from '../stores/store.js';

/** Names for the people and keys some events name. */
export interface ActorNames {
  people: ReadonlyMap<string, string>;
  keys: ReadonlyMap<string, { name: string | null; last4: string }>;
}

/** The person or key an actor names, or null for a service actor (`cli`, `system`, …). */
function actorRef(actor: string): { kind: 'person' | 'key'; id: string } | null {
  const match = /^(person|key):([A-Za-z0-9_-]{1,64})$/.exec(actor);
  return match ? { kind: match[1] as 'person' | 'key', id: match[2]! } : null;
}

/** The actor as a person reads it: an email, `API key "<name>" …abcd`, or the service that acted as it is stored (`cli`, `system`, …). */
export function describeActor(actor: string, names: ActorNames): string {
  const ref = actorRef(actor);
  if (!ref) return actor;
  if (ref.kind === 'person') return names.people.get(ref.id) ?? actor;
  const key = names.keys.get(ref.id);
  return key ? `API key ${key.name === null ? '(unnamed)' : `"${key.name}"`} …${key.last4}` : actor;
}

/**
 * Looks up the people and keys the events name: one read per distinct one (an audit page lists a bounded
 * number). With `accountId`, a key of another account is never named (its id is shown as it is).
 */
export async function loadActorNames(store: Pick<Store, 'getPerson' | 'getApiKey'>, events: readonly Pick<AuditEvent, 'actor'>[], accountId?: string): Promise<ActorNames> {
  const refs = new Map<string, { kind: 'person' | 'key'; id: string }>();
  for (const event of events) {
    const ref = actorRef(event.actor);
    if (ref) refs.set(event.actor, ref);
  }
  const people = new Map<string, string>();
  const keys = new Map<string, { name: string | null; last4: string }>();
  await Promise.all(
    [...refs.values()].map(async (ref) => {
      if (ref.kind === 'person') {
        const person = await store.getPerson(ref.id);
        if (person) people.set(ref.id, person.email);
      } else {
        const key = await store.getApiKey(ref.id);
        if (key && (accountId === undefined || key.accountId === accountId)) keys.set(ref.id, { name: key.name, last4: key.last4 });
      }
    }),
  );
  return { people, keys };
}
