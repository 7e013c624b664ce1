/**
 * GET /v1/generation?id=req_…: the receipt of one of the caller's account's requests (usage/generation-receipt.ts),
 * authenticated like /v1/models and not counted against the quota. Another account's id, or an unknown
 * one, is 404 not_found: the lookup is scoped to the account, so it never says whose an id is.
 *
 * Fresh records are read from this process's ledger queue until their batch is written, so a receipt is
 * there as soon as its response has ended. In cluster mode the request may have been served by another
 * worker, whose queue this one cannot see: a miss is looked up again in the store until that worker's
 * next batch must have been written (ledger.flushIntervalMs, plus a margin), then answered 404.
 */
import type { H3Event } from 'h3';
import { getQuery } from 'h3';
import { RouterError } from '../../core/errors.js';
import type { LedgerRecord } from '../../stores/ledger-store.js';
import { generationReceipt, receiptRecord } from '../../usage/generation-receipt.js';
import { receiptMember } from '../../usage/receipt-member.js';
import type { RouterDeps } from '../router-deps.js';
import type { StandingRequest } from '../request-context.js';

/** How often a miss is looked up again, and how long past the flush interval (a batch's write) it keeps looking. */
const RETRY_MS = 50;
const WRITE_MARGIN_MS = 500;
/** A request's own response may end a moment before its record is queued (the close event): look again this long. */
const ONE_PROCESS_WAIT_MS = 250;

export function createGenerationRoute(deps: RouterDeps) {
  const ledger = deps.config.server.ledger;
  const workers = deps.config.server.listen.workers;
  const waitMs = workers === 1 ? ONE_PROCESS_WAIT_MS : ledger.flushIntervalMs + WRITE_MARGIN_MS;
  return async (event: H3Event, request: StandingRequest) => {
    const id = getQuery(event).id;
    if (typeof id !== 'string' || id.length === 0 || id.length > 200) {
      throw new RouterError('invalid_request', 'Name the request: GET /v1/generation?id=<the x-request-id of its response>.', { param: 'id' });
    }
    const accountId = request.caller.accountId;
    // Elapsed real time, not the injected clock: a frozen test clock must not make this wait forever.
    const deadline = performance.now() + waitMs;
    for (;;) {
      const records = await recordsOf(deps, id, accountId);
      const receipt = generationReceipt(records);
      if (receipt) return { data: { ...receipt.data, member: await receiptMember(deps.store, request.caller, receiptRecord(records)?.personId ?? undefined) } };
      if (deps.usage.ledger === null || performance.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    throw new RouterError('not_found', `No request ${id} of this account is on record.`);
  };
}

/** The request's records: those still queued here, else those written. */
async function recordsOf(deps: RouterDeps, requestId: string, accountId: string): Promise<LedgerRecord[]> {
  const queued = deps.usage.ledger?.queued(requestId, accountId) ?? [];
  if (queued.some((record) => record.call === 'main')) return queued;
  return [...queued, ...(await deps.usage.store.findRecords({ requestId, accountId }))];
}
