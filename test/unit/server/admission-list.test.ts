import { describe, expect, it } from 'vitest';
import type { RouterDeps } from '../../../src/http/router-deps.js';
import { establishing, RequestState, type Authenticated, type Received, type Standing } from '../../../src/http/request-context.js';
import { createAdmissionLists } from '../../../src/http/stages/admission-lists.js';
import { admission, namedStage, type Stage } from '../../../src/http/stages/stage.js';

/** Just what the stage factories read when they are made (they touch nothing else until a request runs). */
const deps = {
  config: {
    server: { edge: { enabled: true, rejectUserAgents: [] }, bodyLimitBytes: 1024 },
    modelAliases: [],
    providers: { providers: [] },
  },
  routes: new Map(),
  plans: new Map(),
} as unknown as RouterDeps;

const namesOf = (list: { stages: readonly { name: string }[] }) => list.stages.map((stage) => stage.name);

describe('the /v1 stage lists', () => {
  const lists = createAdmissionLists(deps);

  it('admit model traffic through the body (a preset applied between reading and checking it), the guardrails, the count, a slot in flight, the minute window and the key’s own caps, in that order', () => {
    expect(namesOf(lists.modelTraffic({}))).toEqual([
      'edge_user_agent',
      'authenticate',
      'refuse_management_key',
      'read_body',
      'check_body',
      'provider_preferences',
      'guardrails',
      'quota',
      'in_flight',
      'rate_limit',
      'key_limits',
    ]);
    expect(namesOf(lists.modelTraffic({}, { modelAliases: true, presets: 'messages' }))).toEqual([
      'edge_user_agent',
      'authenticate',
      'refuse_management_key',
      'read_body',
      'apply_preset',
      'check_body',
      'resolve_model_alias',
      'provider_preferences',
      'guardrails',
      'quota',
      'in_flight',
      'rate_limit',
      'key_limits',
    ]);
  });

  it('read the standing of a token count and of the other endpoints without counting', () => {
    expect(namesOf(lists.countTokens({}))).toEqual([
      'edge_user_agent',
      'authenticate',
      'refuse_management_key',
      'read_body',
      'apply_preset',
      'check_body',
      'resolve_model_alias',
      'provider_preferences',
      'quota_peek',
      'rate_limit',
      'key_limits',
    ]);
    expect(namesOf(lists.otherV1)).toEqual(['edge_user_agent', 'authenticate', 'quota_peek', 'rate_limit']);
    expect(namesOf(lists.management)).toEqual(['edge_user_agent', 'authenticate', 'require_management_key', 'quota_peek', 'rate_limit']);
  });
});

describe('an admission list', () => {
  const caller = { keyId: 'key_1', accountId: 'acct_1', management: false };
  const authenticate: Stage<Received, Authenticated> = async (_event, request) => {
    const authenticated = establishing<Authenticated>(request);
    authenticated.caller = caller;
    return authenticated;
  };
  const standing: Stage<Authenticated, Standing> = async (_event, request) => {
    const established = establishing<Standing>(request);
    established.plan = undefined;
    established.quota = { limit: 10, used: request.caller.accountId === 'acct_1' ? 3 : 0, period: { key: '2026-11', startsAtMs: 0, resetsAtMs: 1, resetsAt: '' } };
    return established;
  };
  const check: Stage<Authenticated & Standing> = (_event, request) => {
    if (request.quota.used > request.quota.limit) throw new Error('over');
  };

  it('keeps its stages in the order they were added, each made once', () => {
    const named = namedStage('check', check);
    const list = admission().then(authenticate).then(standing).then(named);
    expect(list.stages).toEqual([authenticate, standing, named]);
    expect(admission().then(authenticate).stages).toEqual([authenticate]);
  });

  it('extends one object: every stage sets its facts on the request it was given', async () => {
    const request = new RequestState('req_1', 0);
    for (const stage of admission().then(authenticate).then(standing).then(check).stages) {
      const pending = (stage as Stage<RequestState>)({} as never, request);
      if (pending) expect(await pending).toBe(request);
    }
    expect(request.caller).toBe(caller);
    expect(request.quota?.used).toBe(3);
  });

  it('costs a synchronous stage no promise', () => {
    expect(check({} as never, { caller, plan: undefined, quota: { limit: 1, used: 0, period: { key: '', startsAtMs: 0, resetsAtMs: 0, resetsAt: '' } } })).toBeUndefined();
  });

  it('refuses, at compile time, a stage before the stages that establish what it needs', () => {
    // @ts-expect-error the standing needs an authenticated caller
    admission().then(standing);
    // @ts-expect-error the check needs the standing
    admission().then(authenticate).then(check);
    expect(admission().then(authenticate).then(standing).then(check).stages).toHaveLength(3);
  });
});
