/**
 * Public, cacheable metadata built once from configuration: GET /pricing and GET /model-catalog.
 * Discovery only: never upstream accounts or keys, never model traffic.
 */
import { billingEnabled, checkoutUrl } from '../../billing/checkout-links.js';
import type { RouterConfig } from '../../config/types.js';
import type { ManagedAccessStatus } from '../../routing/managed-access.js';

export function buildPricing(config: RouterConfig, managedAccess: ManagedAccessStatus) {
  const { server, plans, pricing } = config;
  return {
    object: 'pricing',
    currency: pricing.currency,
    apiBaseUrl: `${server.baseUrl}/v1`,
    accountUrl: server.appUrl,
    // With billing off nothing is sold online: plans are set by the operator, and no checkout path is listed.
    onlineCheckout: billingEnabled(config),
    plans: plans.map((plan) => ({
      id: plan.id,
      name: plan.name,
      priceMonthly: plan.priceUsdMonthly,
      limits: { monthlyRequests: plan.monthlyRequests, requestsPerMinute: plan.requestsPerMinute },
      routeProfiles: plan.routeProfiles,
      features: pricing.features[plan.id] ?? [],
      checkoutUrl: checkoutUrl(config, plan),
      purchasableOnline: checkoutUrl(config, plan) !== null,
    })),
    launchBoundary: {
      live: ['chat_completions', 'responses', 'streaming', 'fusion', 'fusion_server_tool', 'bring_your_own_provider_keys'],
      notLive: managedAccess.active ? [] : ['managed_provider_access'],
      managedProviderAccess: {
        active: managedAccess.active,
        requested: managedAccess.requested,
        readinessChecks: managedAccess.checks,
      },
      keyRequiredBeforeProviderKeyOrCard: true,
    },
  };
}

export function buildModelCatalog(config: RouterConfig) {
  const { server, plans, catalog } = config;
  return {
    object: 'model_catalog',
    apiBaseUrl: `${server.baseUrl}/v1`,
    note: 'Discovery metadata only. Listing live models and sending traffic need a generated key (GET /v1/models).',
    families: catalog.families.map((family) => ({
      id: family.id,
      title: family.title,
      profile: family.profile,
      description: family.description,
      capabilities: family.capabilities,
      plans: plans.filter((plan) => plan.routeProfiles.includes(family.profile)).map((plan) => plan.id),
      pageUrl: `${server.baseUrl}/model-catalog/${encodeURIComponent(family.id)}`,
    })),
    // Embedding and rerank models, each with the endpoint that serves it (chat models are listed in /v1/models).
    models: catalog.concreteModels
      .filter((model) => model.kind !== 'chat')
      .map((model) => ({
        id: model.id,
        name: model.name,
        kind: model.kind,
        endpoint: model.kind === 'embedding' ? '/v1/embeddings' : '/v1/rerank',
        ...(model.embedding ? { dimensions: model.embedding.dimensions, shortenable: model.embedding.shortenable } : {}),
        pricing: model.endpoints.flatMap((endpoint) => {
          const price = config.providers.providers.find((provider) => provider.id === endpoint.provider)?.prices[endpoint.model];
          return price ? [{ provider: endpoint.provider, inputPerMillionTokensUsd: price.input }] : [];
        }),
      })),
  };
}
