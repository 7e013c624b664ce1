/** What `router probe` runs (defined in probe.ts), loaded only when it runs. */
import { writeFileSync } from 'node:fs';
import { CliFailure, emit, log } from '../cli-io.js';
import { junitReport } from '../probe/junit-report.js';
import { LIMIT_CHECK, runLimitChecks } from '../probe/limit-checks.js';
import { runLinkChecks } from '../probe/link-checks.js';
import { MESSAGES_CHECKS, runMessagesChecks } from '../probe/messages-checks.js';
import { MODEL_CHECKS, runModelChecks } from '../probe/model-checks.js';
import { unreachableBecause } from '../probe/probe-http.js';
import { ProbeSession, type ProbeResult } from '../probe/probe-session.js';
import { runPublicChecks } from '../probe/public-checks.js';

export interface ProbeOptions {
  baseUrl: string;
  key?: string;
  publicOnly?: boolean;
  model: string;
  json?: boolean;
  junit?: string;
}

/** Exit code when nothing failed but authenticated checks were skipped without --public-only. */
export const PROBE_INCOMPLETE_EXIT = 3;

const originOf = (baseUrl: string): string => baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');

export async function runProbe(options: ProbeOptions): Promise<ProbeResult[]> {
  const origin = originOf(options.baseUrl);
  const session = new ProbeSession();
  const documents = await runPublicChecks(session, origin);
  await runLinkChecks(session, documents);
  if (options.key) {
    const probe = { origin, key: options.key, model: options.model };
    const { counted } = await runModelChecks(session, probe);
    counted.push(...(await runMessagesChecks(session, probe)));
    await runLimitChecks(session, counted);
  } else {
    const reason = options.publicOnly ? 'not asked for (--public-only)' : 'needs --key (or $ROUTER_PROBE_KEY)';
    for (const name of [...Object.values(MODEL_CHECKS), ...Object.values(MESSAGES_CHECKS), LIMIT_CHECK]) session.skip('authenticated', name, reason);
  }
  return session.results;
}

export async function probe(options: ProbeOptions): Promise<void> {
  const key = options.publicOnly ? undefined : (options.key ?? process.env.ROUTER_PROBE_KEY);
  // Nothing listening fails every check the same way: one line says so instead.
  const origin = originOf(options.baseUrl);
  const unreachable = await unreachableBecause(origin);
  if (unreachable !== undefined) {
    const message = `the router is not reachable at ${origin} (${unreachable})`;
    if (options.junit) writeFileSync(options.junit, junitReport([{ group: 'public', name: 'the router answers HTTP', status: 'fail', detail: message, ms: 0 }]));
    throw new CliFailure(message);
  }
  const results = await runProbe({ ...options, ...(key ? { key } : {}) });
  const failed = results.filter((result) => result.status === 'fail');
  const skipped = results.filter((result) => result.status === 'skip');
  const incomplete = failed.length === 0 && skipped.length > 0 && !options.publicOnly;
  const outcome = failed.length > 0 ? 'failed' : incomplete ? 'incomplete' : 'passed';
  if (options.junit) writeFileSync(options.junit, junitReport(results));
  emit(options, { ok: failed.length === 0 && !incomplete, outcome, passed: results.length - failed.length - skipped.length, failed: failed.length, skipped: skipped.length, results }, () => printResults(results, outcome));
  process.exitCode = failed.length > 0 ? 1 : incomplete ? PROBE_INCOMPLETE_EXIT : 0;
}

function printResults(results: readonly ProbeResult[], outcome: string): void {
  for (const result of results) {
    if (result.status === 'pass') log.success(`${result.name}: ${result.detail}`);
    else if (result.status === 'skip') log.info(`skipped ${result.name}: ${result.detail}`);
    else {
      log.fail(`${result.name}: ${result.detail}`);
      if (result.failure) log.log(`    request:  ${result.failure.request}\n    response: ${result.failure.response}\n    expected: ${result.failure.expected}`);
    }
  }
  log.info(`probe ${outcome}`);
}
