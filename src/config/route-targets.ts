/**
 * Every upstream target a route profile can call, with its JSON pointer in routes.yaml: its tiers and,
 * for a fusion route, each panel member's, the judge's and the writer's. Cross-checks, price warnings
 * and the spend gate's estimate all read a route's targets here, so a fusion stage is never forgotten.
 */
import type { FusionConfig, RouteProfileConfig, RouteTarget } from './types.js';

export interface PointedTarget {
  target: RouteTarget;
  /** JSON pointer of the target in routes.yaml, relative to the route (e.g. `/fusion/panel/0/tiers/0/1`). */
  pointer: string;
}

type Tiers = RouteProfileConfig['tiers'];

export function routeTargets(route: Pick<RouteProfileConfig, 'tiers' | 'fusion'>): PointedTarget[] {
  const found = tierTargets(route.tiers, '/tiers');
  const fusion = route.fusion;
  if (!fusion) return found;
  fusion.panel.forEach((member, m) => found.push(...tierTargets(member.tiers, `/fusion/panel/${m}/tiers`)));
  found.push(...tierTargets(fusion.judge.tiers, '/fusion/judge/tiers'));
  if (fusion.writer) found.push(...tierTargets(fusion.writer.tiers, '/fusion/writer/tiers'));
  return found;
}

/**
 * How many upstream calls that produce output one fusion run makes at most: each member, the judge's
 * replies (two per judge target: a reply whose JSON fails is asked once more), and the writer.
 */
export function fusionCallCount(fusion: FusionConfig): number {
  const judgeReplies = fusion.mode === 'judge-writes' ? 0 : 2 * fusion.judge.tiers.flat().length;
  return fusion.panel.length + judgeReplies + 1;
}

function tierTargets(tiers: Tiers, base: string): PointedTarget[] {
  return tiers.flatMap((tier, t) => tier.map((target, i) => ({ target, pointer: `${base}/${t}/${i}` })));
}
