/** `router audit`: the durable operator audit events (accounts, keys, provider keys, plans, managed access), newest first. */
import type { Command } from 'commander';
import type { AuditEvent } from '../../stores/store.js';
import { withCliContext, withStoreOptions, type StoreCommandOptions } from '../cli-context.js';
import { emit, log } from '../cli-io.js';
import { usageError } from '../usage-error.js';

/** The table's columns, so the header row and each event's line line up. */
function row(at: string, actor: string, action: string, subject: string, details: string): string {
  return `${at.padEnd(24)}  ${actor.padEnd(6)}  ${action.padEnd(22)}  ${subject}  ${details}`;
}

function describe(event: AuditEvent): string {
  const subject = [event.accountId, event.keyId].filter((id) => id !== null).join(' ') || '-';
  return row(event.at, event.actor, event.action, subject, JSON.stringify(event.details));
}

export function registerAuditCommand(program: Command): void {
  withStoreOptions(program.command('audit'))
    .description('operator audit events, newest first: changes to accounts, keys, provider keys, plans and managed access')
    .option('--account <id>', "only this account's events (configuration events have no account)")
    .option('--limit <n>', 'at most this many events', '100')
    .action(async function (this: Command, options: StoreCommandOptions & { account?: string; limit: string }) {
      if (!/^[1-9]\d{0,5}$/.test(options.limit)) usageError(this, `--limit must be a whole number from 1 to 999999, got '${options.limit}'`);
      await withCliContext(options.config, async ({ store }) => {
        const events = await store.listAuditEvents({ ...(options.account ? { accountId: options.account } : {}), limit: Number(options.limit) });
        emit(options, { events }, () => {
          if (events.length === 0) return log.info('no audit events');
          process.stdout.write(`${row('at', 'actor', 'action', 'subject', 'details')}\n`);
          for (const event of events) process.stdout.write(`${describe(event)}\n`);
        });
      });
    });
}
