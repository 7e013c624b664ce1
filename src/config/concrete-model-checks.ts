/**
 * `router check` for concrete models (catalog.yaml `concreteModels`) and provider policies: every
 * endpoint names a known provider, a model id is unique and never a route profile's, and a plan's model
 * patterns are well formed. A provider without a data policy is only a warning: it is never chosen for a
 * request that states one (routing/provider-preferences.ts), which the operator should know.
 */
import type { RawConfigFiles } from './config-files.js';
import type { FileProblem } from './file-problem.js';

export function concreteModelProblems(files: Partial<RawConfigFiles>): FileProblem[] {
  const { catalog, providers, routes, plans } = files;
  const models = catalog?.concreteModels ?? [];
  const problems: FileProblem[] = [];
  const knownProviders = providers ? new Set(providers.providers.map((provider) => provider.id)) : undefined;
  const profileIds = routes ? new Set(routes.routes.map((route) => route.id)) : new Set<string>();
  const seen = new Set<string>();
  models.forEach((model, m) => {
    if (seen.has(model.id) || profileIds.has(model.id)) {
      const message = `concrete model "${model.id}" is defined twice (as a concrete model or a route profile)`;
      problems.push({ file: 'catalog', pointer: `/concreteModels/${m}/id`, target: 'value', message });
    }
    seen.add(model.id);
    if ((model.kind === 'embedding') !== (model.embedding !== undefined)) {
      const message = model.embedding
        ? `concrete model "${model.id}" has embedding dimensions but is not kind: embedding`
        : `embedding model "${model.id}" needs embedding.dimensions (the length of its vectors)`;
      problems.push({ file: 'catalog', pointer: `/concreteModels/${m}/kind`, target: 'value', message });
    }
    const serves = model.kind === 'embedding' ? 'embeddings' : model.kind === 'rerank' ? 'rerank' : undefined;
    model.endpoints.forEach((endpoint, e) => {
      const provider = providers?.providers.find((candidate) => candidate.id === endpoint.provider);
      if (!serves || !provider || provider[serves]) return;
      const message = `${model.kind} model "${model.id}" names provider "${endpoint.provider}", which does not serve ${serves} (set ${serves}: true on the provider if it does)`;
      problems.push({ file: 'catalog', pointer: `/concreteModels/${m}/endpoints/${e}/provider`, target: 'value', message });
    });
    model.endpoints.forEach((endpoint, e) => {
      if (!knownProviders || knownProviders.has(endpoint.provider)) return;
      const message = `concrete model "${model.id}" names unknown provider "${endpoint.provider}" (known: ${[...knownProviders].join(', ')})`;
      problems.push({ file: 'catalog', pointer: `/concreteModels/${m}/endpoints/${e}/provider`, target: 'value', message });
    });
  });
  plans?.plans.forEach((plan, p) => {
    for (const list of ['allow', 'deny'] as const) {
      plan.models?.[list].forEach((pattern, i) => {
        if (/^[A-Za-z0-9_.:*/-]+$/.test(pattern)) return;
        const message = `plan "${plan.id}" model pattern "${pattern}" may hold only model-id characters and *`;
        problems.push({ file: 'plans', pointer: `/plans/${p}/models/${list}/${i}`, target: 'value', message });
      });
    }
  });
  return problems;
}

export function providerPolicyWarnings(files: Partial<RawConfigFiles>): FileProblem[] {
  return (files.providers?.providers ?? []).flatMap((provider, p) =>
    provider.policy
      ? []
      : [
          {
            file: 'providers' as const,
            pointer: `/providers/${p}`,
            target: 'value' as const,
            message: `provider "${provider.id}" declares no data policy (policy): requests with provider.data_collection: deny or provider.zdr: true never go to it`,
          },
        ],
  );
}
