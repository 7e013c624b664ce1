/**
 * `router probe`: the acceptance test an operator runs against a live router after every deploy.
 * Public checks (metadata, the guided 401 with every field, the 1010 rule, every onboarding link
 * resolving) always run; with --key the model checks (chat, Responses, Messages) run too, sending real
 * traffic (about a dozen requests, counted against the key's quota). Without --key those are reported as skipped and the probe is
 * incomplete (exit 3) unless --public-only says that is intended. Exit 1 on any failure.
 */
import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';

export function registerProbeCommand(program: Command): void {
  program
    .command('probe')
    .description('acceptance test against a live router: public endpoints, onboarding links, and with --key real model traffic')
    .requiredOption('--base-url <url>', 'the router origin or its /v1 base URL')
    .option('--key <key>', 'a generated key for the authenticated checks (or $ROUTER_PROBE_KEY); they send real traffic')
    .option('--public-only', 'run only the public checks and call that complete')
    .option('--model <profile>', 'route profile for the model checks', 'router/frontier')
    .option('--json', 'print one JSON document')
    .option('--junit <file>', 'also write a JUnit XML report')
    .action(lazyAction(() => import('./probe-actions.js'), 'probe'));
}
