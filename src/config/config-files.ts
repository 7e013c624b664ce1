/**
 * The six YAML files of a configuration directory and the shapes they have once their schema has
 * passed (defaults filled in). These raw shapes differ from RouterConfig only where code derives
 * values: optional URLs that default from others, and secrets that are still plain strings.
 */
import type {
  CatalogFamily,
  CatalogModel,
  ConcreteModel,
  CircuitBreakerConfig,
  ManagedAccessConfig,
  ModelAliasConfig,
  PlanConfig,
  PricingConfig,
  ProviderConfig,
  RouteProfileConfig,
  ServerConfig,
} from './types.js';

export const CONFIG_FILE_NAMES = ['server', 'plans', 'routes', 'providers', 'catalog', 'pricing'] as const;

export type ConfigFileName = (typeof CONFIG_FILE_NAMES)[number];

export type RawServerFile = Omit<ServerConfig, 'baseUrl' | 'appUrl' | 'docsUrl' | 'supportUrl' | 'secretKey' | 'metrics' | 'billing' | 'app'> & {
  app: Omit<ServerConfig['app'], 'mail' | 'requireEmailVerification'> & {
    mail: { transport: ServerConfig['app']['mail']['transport']; smtpUrl?: string; from: string };
    requireEmailVerification?: boolean;
  };
  baseUrl?: string;
  appUrl?: string;
  docsUrl?: string;
  supportUrl?: string;
  secretKey?: string;
  metrics: { enabled: boolean; token?: string };
  billing: Omit<ServerConfig['billing'], 'stripe'> & { stripe: { secretKey?: string; webhookSecret?: string; apiUrl: string } };
};

/** A plan as written: maxConcurrentRequests may be left out (assemble-router-config.ts fills it). */
export type RawPlan = Omit<PlanConfig, 'maxConcurrentRequests'> & { maxConcurrentRequests?: number };

export type RawProvider = Omit<ProviderConfig, 'managedKey'> & { managedKey?: string };

export interface RawConfigFiles {
  server: RawServerFile;
  plans: { plans: RawPlan[] };
  routes: { routes: RouteProfileConfig[]; aliases?: ModelAliasConfig[] };
  providers: { providers: RawProvider[]; circuitBreaker: CircuitBreakerConfig; managedAccess: ManagedAccessConfig };
  catalog: { families: CatalogFamily[]; models: CatalogModel[]; concreteModels?: ConcreteModel[] };
  pricing: PricingConfig;
}
