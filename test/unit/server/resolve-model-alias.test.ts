import { describe, expect, it } from 'vitest';
import type { RouteProfileConfig } from '../../../src/config/types.js';
import type { WithBody } from '../../../src/http/request-context.js';
import { globMatcher } from '../../../src/config/model-globs.js';
import { createResolveModelAliasStage } from '../../../src/http/stages/resolve-model-alias.js';

const route = (id: string) => ({ id }) as RouteProfileConfig;
const routes = new Map([route('router/frontier'), route('router/cheap')].map((profile) => [profile.id, profile]));

function resolve(model: unknown, known?: RouteProfileConfig): RouteProfileConfig | undefined {
  const stage = createResolveModelAliasStage(
    [
      { model: 'claude-haiku-*', route: 'router/cheap' },
      { model: 'claude-*', route: 'router/frontier' },
      { model: 'exact.name', route: 'router/frontier' },
    ],
    routes,
  );
  const request: WithBody = { body: { model }, route: known };
  void stage({} as never, request);
  return request.route;
}

describe('model aliases', () => {
  it('sends a name to the first alias that matches it, by glob or exactly', () => {
    expect(resolve('claude-haiku-5-5')?.id).toBe('router/cheap');
    expect(resolve('claude-opus-5-5')?.id).toBe('router/frontier');
    expect(resolve('exact.name')?.id).toBe('router/frontier');
    expect(resolve('exactXname')).toBeUndefined();
    expect(resolve('gpt-4.1')).toBeUndefined();
  });

  it('leaves a model that names a profile as the body stage resolved it', () => {
    expect(resolve('claude-opus-5-5', route('router/fusion'))?.id).toBe('router/fusion');
  });

  it('matches * against any run of characters and everything else literally', () => {
    expect(globMatcher('a*b')('ab')).toBe(true);
    expect(globMatcher('a*b')('a/x.yb')).toBe(true);
    expect(globMatcher('a.b*')('axb')).toBe(false);
    expect(globMatcher('a(b)*')('a(b)c')).toBe(true);
  });
});
