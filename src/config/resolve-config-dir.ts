/** The configuration directory: the `--config` flag, else ROUTER_CONFIG (when not empty), else ./config. */
export function resolveConfigDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? (env.ROUTER_CONFIG || './config');
}
