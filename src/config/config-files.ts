/**
 * The six YAML files of a configuration directory and the shapes they have once their schema has
 * passed (defaults filled in): each is its schema's Static type (schemas/<file>-file.ts).
 */
import type { RawCatalogFile } from './schemas/catalog-file.js';
import type { RawPlansFile } from './schemas/plans-file.js';
import type { RawPricingFile } from './schemas/pricing-file.js';
import type { RawProvidersFile } from './schemas/providers-file.js';
import type { RawRoutesFile } from './schemas/routes-file.js';
import type { RawServerFile } from './schemas/server-file.js';

export type { RawServerFile };

export const CONFIG_FILE_NAMES = ['server', 'plans', 'routes', 'providers', 'catalog', 'pricing'] as const;

export type ConfigFileName = (typeof CONFIG_FILE_NAMES)[number];

/** A plan as written: maxConcurrentRequests may be left out (assemble-router-config.ts fills it). */
export type RawPlan = RawPlansFile['plans'][number];

export type RawProvider = RawProvidersFile['providers'][number];

export interface RawConfigFiles {
  server: RawServerFile;
  plans: RawPlansFile;
  routes: RawRoutesFile;
  providers: RawProvidersFile;
  catalog: RawCatalogFile;
  pricing: RawPricingFile;
}
