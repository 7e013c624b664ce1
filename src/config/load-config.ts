import { ConfigError } from './config-error.js';
import { readConfig } from './read-config.js';
import type { RouterConfig } from './types.js';

/**
 * Reads, validates and freezes the configuration in `dir` (server, plans, routes, providers, catalog,
 * pricing .yaml), resolving `${VAR}` references and ROUTER_* overrides from `env`.
 * Throws ConfigError listing every problem found.
 */
export function loadConfig(dir: string, env: NodeJS.ProcessEnv): RouterConfig {
  const { config, problems } = readConfig(dir, env);
  if (!config) throw new ConfigError(dir, problems);
  return config;
}
