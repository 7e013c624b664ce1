import { describe, expect, it } from 'vitest';
import { resolveConfigDir } from '../../../src/config/resolve-config-dir.js';

describe('resolveConfigDir', () => {
  it('prefers the flag, then ROUTER_CONFIG, then ./config', () => {
    expect(resolveConfigDir('/etc/router', { ROUTER_CONFIG: '/srv/router' })).toBe('/etc/router');
    expect(resolveConfigDir(undefined, { ROUTER_CONFIG: '/srv/router' })).toBe('/srv/router');
    expect(resolveConfigDir(undefined, {})).toBe('./config');
  });

  it('ignores an empty ROUTER_CONFIG', () => {
    expect(resolveConfigDir(undefined, { ROUTER_CONFIG: '' })).toBe('./config');
  });
});
