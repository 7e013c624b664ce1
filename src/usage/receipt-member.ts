/**
 * The member a receipt names (GET /v1/generation): the email of the person whose key made the request,
 * as recorded with it (usage_records.person_id), so a key handed over since still names who made it.
 * The team's role rules apply: a `member` sees only the usage they caused, so a member's key reads the
 * name only on its own person's requests; owners', admins' and viewers' keys, and keys the operator made
 * (no person), read everyone's. Two small reads, on receipts only, never on the request path.
 */
import type { Store } from '../stores/store.js';

export type ReceiptMemberStore = Pick<Store, 'getMembership' | 'getPerson'>;

/** The email to show, or null: none recorded (the operator's keys, records before teams) or not the caller's to see. */
export async function receiptMember(store: ReceiptMemberStore, caller: { accountId: string; personId?: string | null }, recordedPersonId: string | undefined): Promise<string | null> {
  if (!recordedPersonId) return null;
  if (caller.personId && caller.personId !== recordedPersonId) {
    const membership = await store.getMembership(caller.accountId, caller.personId);
    if (!membership || membership.role === 'member') return null;
  }
  return (await store.getPerson(recordedPersonId))?.email ?? null;
}
