/**
 * catalog.yaml `models`: each names a provider of providers.yaml, once per (provider, model); and a
 * routed model without a limit is worth a warning, since its requests go out with whatever output cap
 * the client asked for, which the upstream may refuse.
 */
import type { RawConfigFiles } from './config-files.js';
import type { FileProblem } from './file-problem.js';
import { routeTargets } from './route-targets.js';

export function outputLimitProblems(files: Partial<RawConfigFiles>): FileProblem[] {
  const { catalog, providers } = files;
  if (!catalog?.models) return [];
  const known = providers ? new Set(providers.providers.map((provider) => provider.id)) : undefined;
  const firstIndex = new Map<string, number>();
  const problems: FileProblem[] = [];
  catalog.models.forEach(({ provider, model }, index) => {
    if (known && !known.has(provider)) {
      const message = `output limit of "${model}" names unknown provider "${provider}" (known: ${[...known].join(', ')})`;
      problems.push({ file: 'catalog', pointer: `/models/${index}/provider`, target: 'value', message });
    }
    const key = `${provider}\u0000${model}`;
    const first = firstIndex.get(key);
    if (first === undefined) firstIndex.set(key, index);
    else problems.push({ file: 'catalog', pointer: `/models/${index}/model`, target: 'value', message: `duplicate output limit for ${provider}/${model} (first defined at models[${first}])` });
  });
  return problems;
}

export function outputLimitWarnings(files: Partial<RawConfigFiles>): FileProblem[] {
  const { routes, catalog } = files;
  if (!routes || !catalog) return [];
  const limited = new Set((catalog.models ?? []).map(({ provider, model }) => `${provider}\u0000${model}`));
  const warned = new Set<string>();
  const warnings: FileProblem[] = [];
  routes.routes.forEach((route, r) =>
    routeTargets(route).forEach(({ target, pointer }) => {
      const key = `${target.provider}\u0000${target.model}`;
      if (limited.has(key) || warned.has(key)) return;
      warned.add(key);
      warnings.push({
        file: 'routes',
        pointer: `/routes/${r}${pointer}/model`,
        target: 'value',
        message: `route profile "${route.id}" routes to ${target.provider}/${target.model}, which has no output limit in catalog.yaml (models): output caps above the model's own limit are sent as asked, and the upstream may refuse them`,
      });
    }),
  );
  return warnings;
}
