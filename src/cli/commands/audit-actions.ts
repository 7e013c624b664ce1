/** What `router audit` runs (defined in audit.ts), loaded only when it runs. */
import type { Command } from 'commander';
import type { AuditEvent } from '../../stores/store.js';
import { describeActor, loadActorNames, type ActorNames } from '../../usage/audit-actors.js';
import { withCliContext } from '../cli-context.js';
import { emit, log } from '../cli-io.js';
import type { StoreCommandOptions } from '../store-options.js';
import { usageError } from '../usage-error.js';

/** The table's columns, so the header row and each event's line line up. */
function row(at: string, actor: string, action: string, subject: string, details: string, actorWidth: number): string {
  return `${at.padEnd(24)}  ${actor.padEnd(actorWidth)}  ${action.padEnd(22)}  ${subject}  ${details}`;
}

function describe(event: AuditEvent & { actorName: string }, actorWidth: number): string {
  const subject = [event.accountId, event.keyId].filter((id) => id !== null).join(' ') || '-';
  return row(event.at, event.actorName, event.action, subject, JSON.stringify(event.details), actorWidth);
}

function named(events: readonly AuditEvent[], names: ActorNames): (AuditEvent & { actorName: string })[] {
  return events.map((event) => ({ ...event, actorName: describeActor(event.actor, names) }));
}

export async function listAuditEvents(this: Command, options: StoreCommandOptions & { account?: string; limit: string }): Promise<void> {
  if (!/^[1-9]\d{0,5}$/.test(options.limit)) usageError(this, `--limit must be a whole number from 1 to 999999, got '${options.limit}'`);
  await withCliContext(options.config, async ({ store }) => {
    const stored = await store.listAuditEvents({ ...(options.account ? { accountId: options.account } : {}), limit: Number(options.limit) });
    const events = named(stored, await loadActorNames(store, stored));
    emit(options, { events }, () => {
      if (events.length === 0) return log.info('no audit events');
      const width = Math.max(6, ...events.map((event) => event.actorName.length));
      process.stdout.write(`${row('at', 'actor', 'action', 'subject', 'details', width)}\n`);
      for (const event of events) process.stdout.write(`${describe(event, width)}\n`);
    });
  });
}
