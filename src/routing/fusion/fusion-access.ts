/**
 * Can the account's provider credentials run a fusion profile at all? A run needs `minAnswers` panel
 * members and its writer (the judge when the judge writes) to have a provider the account holds a
 * credential for. Without them every run fails the same way and retrying cannot change that, so the
 * request is refused up front with 403 `no_provider_access` naming the providers to add a key for,
 * before anything is reserved or sent (the judge of analyze-then-write is optional: the writer then
 * writes without an analysis).
 */
import type { FusionConfig, FusionStageConfig, RouteProfileConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import type { FailoverDeps } from '../failover.js';

type AccessDeps = Pick<FailoverDeps, 'providers' | 'credentialsOf'>;

export async function fusionAccessProblem(deps: AccessDeps, accountId: string, route: RouteProfileConfig & { fusion: FusionConfig }): Promise<RouterError | undefined> {
  const { fusion } = route;
  const credentialFor = await deps.credentialsOf(accountId);
  const reachable = (stage: FusionStageConfig): boolean => stage.tiers.flat().some((target) => deps.providers.has(target.provider) && credentialFor(target.provider) !== undefined);
  const panel = fusion.panel.map(reachable);
  const writer = fusion.mode === 'judge-writes' ? fusion.judge : (fusion.writer ?? { tiers: route.tiers });
  const answering = panel.filter(Boolean).length;
  const writerReachable = reachable(writer);
  if (answering >= fusion.minAnswers && writerReachable) return undefined;

  const stagesWithout = [...(answering < fusion.minAnswers ? fusion.panel.filter((_, index) => !panel[index]) : []), ...(writerReachable ? [] : [writer])];
  const missing = [...new Set(stagesWithout.flatMap((stage) => stage.tiers.flat().map((target) => target.provider)))];
  const lacks = [
    ...(answering < fusion.minAnswers ? [`${fusion.minAnswers} panel answers are needed and this account's keys reach ${answering} of the ${fusion.panel.length} panel members`] : []),
    ...(writerReachable ? [] : ['no key reaches the writer']),
  ];
  return new RouterError(
    'no_provider_access',
    `${route.id} needs provider keys this account does not have: ${lacks.join('; ')}. Add a key for ${missing.join(' or ')} on your account page.`,
    { details: { missingProviders: missing } },
  );
}
