import type { ConfigFileName, RawConfigFiles } from './config-files.js';
import { parseCidr } from '../core/proxy-trust.js';
import { routeTargets } from './route-targets.js';
import { concreteModelProblems } from './concrete-model-checks.js';
import { outputLimitProblems } from './output-limit-checks.js';
import { escapePointerSegment } from './locate-pointer.js';
import type { FileProblem } from './file-problem.js';

/**
 * Checks what no single schema can: ids unique within a file, and every reference from one file to
 * another resolving. Takes only the files that passed their schema; a check whose files are not all
 * there is skipped, so a broken file never causes a cascade of follow-on problems.
 */
export function crossCheck(files: Partial<RawConfigFiles>): FileProblem[] {
  const { server, plans, routes, providers, catalog, pricing } = files;
  const problems: FileProblem[] = [];
  if (plans) problems.push(...duplicateIds('plans', 'plans', plans.plans, 'plan'));
  if (routes) problems.push(...duplicateIds('routes', 'routes', routes.routes, 'route profile'));
  if (providers) problems.push(...duplicateIds('providers', 'providers', providers.providers, 'provider'));
  if (catalog) problems.push(...duplicateIds('catalog', 'families', catalog.families, 'catalog family'));

  if (routes && providers) {
    const known = idsOf(providers.providers);
    routes.routes.forEach((route, r) =>
      routeTargets(route).forEach(({ target, pointer }) => {
        problems.push(...unknown('routes', `/routes/${r}${pointer}/provider`, `route profile "${route.id}"`, 'provider', target.provider, known));
      }),
    );
  }
  if (routes) {
    routes.routes.forEach((route, r) => {
      const fusion = route.fusion;
      if (!fusion || fusion.minAnswers <= fusion.panel.length) return;
      const message = `route profile "${route.id}" needs ${fusion.minAnswers} fusion answers (minAnswers) from a panel of ${fusion.panel.length}`;
      problems.push({ file: 'routes', pointer: `/routes/${r}/fusion/minAnswers`, target: 'value', message });
    });
  }
  if (routes) {
    const known = idsOf(routes.routes);
    (routes.aliases ?? []).forEach((alias, a) => {
      problems.push(...unknown('routes', `/aliases/${a}/route`, `model alias "${alias.model}"`, 'route profile', alias.route, known));
    });
  }
  if (server && plans) {
    problems.push(...unknown('server', '/app/signupPlan', 'the account app', 'plan', server.app.signupPlan, idsOf(plans.plans)));
  }
  if (plans && routes) {
    const known = idsOf(routes.routes);
    plans.plans.forEach((plan, p) =>
      plan.routeProfiles.forEach((profile, i) => {
        const pointer = `/plans/${p}/routeProfiles/${i}`;
        problems.push(...unknown('plans', pointer, `plan "${plan.id}"`, 'route profile', profile, known));
      }),
    );
  }
  problems.push(...outputLimitProblems(files));
  if (catalog && routes) {
    const known = idsOf(routes.routes);
    catalog.families.forEach((family, f) => {
      const pointer = `/families/${f}/profile`;
      problems.push(...unknown('catalog', pointer, `catalog family "${family.id}"`, 'route profile', family.profile, known));
    });
  }
  problems.push(...concreteModelProblems(files));
  if (server && plans) problems.push(...billingProblems(server, plans.plans));
  if (server) {
    server.trustedProxies.forEach((range, i) => {
      if (parseCidr(range)) return;
      const message = `trusted proxy "${range}" is not an IPv4 or IPv6 address or CIDR range (e.g. 10.0.0.0/8, 2001:db8::/32, 127.0.0.1)`;
      problems.push({ file: 'server', pointer: `/trustedProxies/${i}`, target: 'value', message });
    });
  }
  if (pricing && plans) {
    const known = idsOf(plans.plans);
    for (const planId of Object.keys(pricing.features)) {
      if (known.has(planId)) continue;
      const pointer = `/features/${escapePointerSegment(planId)}`;
      const message = `features for unknown plan "${planId}" (known: ${[...known].join(', ')})`;
      problems.push({ file: 'pricing', pointer, target: 'key', message });
    }
  }
  return problems;
}

/** With Stripe on, everything a purchase needs must be there: both secrets, the app, and a price for every paid plan. */
function billingProblems(server: RawConfigFiles['server'], plans: RawConfigFiles['plans']['plans']): FileProblem[] {
  if (server.billing.provider !== 'stripe') return [];
  const problems: FileProblem[] = [];
  const stripe = server.billing.stripe;
  for (const field of ['secretKey', 'webhookSecret'] as const) {
    if (!stripe[field]) {
      problems.push({ file: 'server', pointer: '/billing/stripe', target: 'value', message: `billing.provider is stripe but billing.stripe.${field} is empty (set it from the environment)` });
    }
  }
  if (!server.app.enabled) {
    problems.push({ file: 'server', pointer: '/billing/provider', target: 'value', message: 'billing.provider is stripe but the account app (app.enabled) is off: checkout and webhooks live in the app' });
  }
  const firstPlanOfPrice = new Map<string, string>();
  plans.forEach((plan, p) => {
    if (plan.priceUsdMonthly > 0 && !plan.stripePriceId) {
      problems.push({ file: 'plans', pointer: `/plans/${p}`, target: 'value', message: `paid plan "${plan.id}" has no stripePriceId (billing.provider is stripe)` });
    }
    if (!plan.stripePriceId) return;
    const first = firstPlanOfPrice.get(plan.stripePriceId);
    if (first) problems.push({ file: 'plans', pointer: `/plans/${p}/stripePriceId`, target: 'value', message: `plan "${plan.id}" uses the Stripe price of plan "${first}"` });
    else firstPlanOfPrice.set(plan.stripePriceId, plan.id);
  });
  return problems;
}

function idsOf(items: readonly { id: string }[]): Set<string> {
  return new Set(items.map((item) => item.id));
}

function duplicateIds(file: ConfigFileName, listKey: string, items: readonly { id: string }[], what: string): FileProblem[] {
  const firstIndex = new Map<string, number>();
  const problems: FileProblem[] = [];
  items.forEach((item, index) => {
    const first = firstIndex.get(item.id);
    if (first === undefined) {
      firstIndex.set(item.id, index);
      return;
    }
    const message = `duplicate ${what} id "${item.id}" (first defined at ${listKey}[${first}])`;
    problems.push({ file, pointer: `/${listKey}/${index}/id`, target: 'value', message });
  });
  return problems;
}

function unknown(
  file: ConfigFileName,
  pointer: string,
  owner: string,
  what: string,
  name: string,
  known: ReadonlySet<string>,
): FileProblem[] {
  if (known.has(name)) return [];
  const message = `${owner} names unknown ${what} "${name}" (known: ${[...known].join(', ')})`;
  return [{ file, pointer, target: 'value', message }];
}
