import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { providerAccessPromise } from '../../../src/app/provider-access.js';
import { BASE_CONFIG_DIR } from '../config/config-variant.js';

const config = loadConfig(BASE_CONFIG_DIR, {});

describe('what the public pages promise about provider keys', () => {
  it('managed access off (the default): nobody is included, whatever the plans say', () => {
    expect(providerAccessPromise(config, { active: false, plans: [] })).toEqual({ signupIncluded: false, signupPlan: 'Free', includedPlans: [], providerNames: 'OpenAI, Anthropic or Google Gemini' });
    // Plans are only ever listed when managed access is live: a requested-but-failed readiness promises nothing.
    expect(providerAccessPromise(config, { active: false, plans: ['pro'] }).includedPlans).toEqual([]);
  });

  it('managed access on: the plans it covers by name, and whether the sign-up plan is one', () => {
    expect(providerAccessPromise(config, { active: true, plans: ['pro', 'max'] })).toMatchObject({ signupIncluded: false, includedPlans: ['Pro', 'Max'] });
    const proSignup = { ...config, server: { ...config.server, app: { ...config.server.app, signupPlan: 'pro' } } };
    expect(providerAccessPromise(proSignup, { active: true, plans: ['pro'] })).toMatchObject({ signupIncluded: true, signupPlan: 'Pro' });
  });
});
