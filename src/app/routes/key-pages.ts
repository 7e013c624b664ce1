/**
 * Onboarding (the first key) and the keys page: create, rotate with grace (idempotent; the replacement
 * keeps name, expiry and own limits), revoke (also a key in its grace), own limits. Creating and rotating
 * answer with a redirect and hand the new key to the next page through KeyFlash, so a reload never makes
 * a second key.
 */
import type { H3Event, Router } from 'h3';
import { isPlaygroundKey, isReservedKeyName, type IssuedKey } from '../../accounts/key-service.js';
import { callReadiness } from '../call-readiness.js';
import { formProblem } from '../form-state.js';
import type { Flash } from '../key-flash.js';
import { DEFAULT_PLAYGROUND_MESSAGE } from './playground-pages.js';
import { hygieneHints, keyState, limitsLabel, maskedKey, parseLimit } from '../key-views.js';
import { zonedTime } from '../time-zone.js';
import { errorPage, linksOf, redirectAfterPost, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import type { WebDeps } from '../web-deps.js';
import { canManageKey, mayMakeManagementKeys, roleAllows } from '../route-roles.js';
import { workspaceLabel } from '../control-targets.js';
import { sendVerificationLink, verificationNeeded, verifyEmailView } from '../email-verification.js';
import { MAIL_LIMITS } from '../mail-limits.js';
import { homeAlertViews } from './alert-pages.js';

const EXPIRY_DAYS = new Set(['7', '30', '90', '365']);
const GRACE_SECONDS = new Set([0, 3600, 86_400, 604_800]);

export function registerKeyPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store } = deps;
  /** One rotation per key at a time on this instance, so a double click cannot race past the idempotency check. */
  const rotating = new Map<string, Promise<unknown>>();

  const shown = (issued: IssuedKey, zone: string) => ({ key: issued.key, name: issued.record.name, expiresAt: issued.record.expiresAt ? zonedTime(issued.record.expiresAt, zone) : null });
  /** Show the new key on the page the browser is sent to next (once). */
  const showNext = (event: H3Event, page: PageContext, location: string, flash: Flash) => {
    deps.flash.put(event, page.session.id, flash);
    return redirectAfterPost(event, location);
  };

  async function keysView(page: PageContext, extra: Record<string, unknown> = {}, status?: number): Promise<string> {
    const accountId = page.account.id;
    const [keys, limits, rotations, lastUsed, openAlerts, workspaces] = await Promise.all([
      personsKeys(page),
      store.listKeyLimits(accountId),
      store.listReplacements(accountId),
      deps.ledger.lastUsed(accountId),
      homeAlertViews(deps, accountId, page.timeZone),
      store.listWorkspaces(accountId),
    ]);
    // A key without a workspace of its own is in the default one (and follows it when the default changes).
    const defaultWorkspace = workspaces.find((workspace) => workspace.isDefault);
    const workspaceOf = (id: string | null) => workspaces.find((workspace) => workspace.id === (id ?? defaultWorkspace?.id));
    const now = deps.clock.now();
    const at = (iso: string | null) => zonedTime(iso, page.timeZone);
    const limitsById = new Map(limits.map((entry) => [entry.keyId, entry]));
    const rows = keys
      .map((key) => {
        const state = keyState(key, now, rotations.has(key.id));
        const own = limitsById.get(key.id);
        const used = lastUsed?.get(key.id);
        return {
          id: key.id,
          name: key.name,
          management: key.kind === 'management',
          masked: maskedKey(key),
          state,
          stateLabel: state === 'live' ? 'active' : state === 'grace' ? `rotated, works until ${at(key.expiresAt)}` : 'revoked',
          live: state === 'live',
          // A key in its rotation grace can still be revoked at once (a leaked key must not wait out the grace).
          revocable: state !== 'retired',
          // Its own usage page (key-usage-pages.ts): the last 30 days by day, route profile and provider.
          usageHref: `${app}/keys/${key.id}/usage`,
          usedRecently: Boolean(used && now - Date.parse(used) < 29 * 86_400_000),
          createdAt: key.createdAt,
          createdLabel: at(key.createdAt),
          expiresLabel: key.revokedAt ? `revoked ${at(key.revokedAt)}` : key.expiresAt ? at(key.expiresAt) : 'never',
          lastUsedLabel: lastUsed === null ? 'not recorded on this server' : used ? at(used) : 'never',
          limitsLabel: limitsLabel(own),
          workspaceId: workspaceOf(key.workspaceId)?.id ?? '',
          workspaceLabel: workspaceOf(key.workspaceId)?.name ?? '—',
          monthlyRequests: own?.monthlyRequests ?? null,
          requestsPerMinute: own?.requestsPerMinute ?? null,
          lastUsed: lastUsed === null ? undefined : (used ?? null),
          expiresAt: key.expiresAt,
          last4: key.last4,
        };
      })
      .reverse();
    const hints = hygieneHints(rows.filter((row) => row.state === 'live'), now);
    return page.view(
      'keys',
      {
        title: 'API keys',
        keys: rows,
        hints,
        openAlerts,
        managementKeys: mayMakeManagementKeys(page.role),
        plan: page.plan ?? { monthlyRequests: 0, requestsPerMinute: 0 },
        workspaces: workspaces.map((workspace) => ({ id: workspace.id, label: workspaceLabel(workspace) })),
        defaultWorkspaceId: defaultWorkspace?.id ?? '',
        movesKeys: roleAllows(page.role, 'admin') && workspaces.length > 1,
        ...extra,
      },
      status ? { status } : {},
    );
  }

  /** The two own limits, or an error for each field that is not right. */
  function readLimits(page: PageContext, form: Record<string, string>): { errors: Record<string, string> } | { monthlyRequests: number | null; requestsPerMinute: number | null } {
    const monthly = parseLimit(form.monthlyRequests, page.plan?.monthlyRequests ?? 0, 'The monthly cap');
    const perMinute = parseLimit(form.requestsPerMinute, page.plan?.requestsPerMinute ?? 0, 'The per-minute limit');
    const errors: Record<string, string> = {};
    if (monthly !== null && typeof monthly === 'object') errors.monthlyRequests = monthly.problem;
    if (perMinute !== null && typeof perMinute === 'object') errors.requestsPerMinute = perMinute.problem;
    if (Object.keys(errors).length > 0) return { errors };
    return { monthlyRequests: monthly as number | null, requestsPerMinute: perMinute as number | null };
  }

  /** The account's keys as the person knows them: the playground's own key (playground-keys.ts) is the app's, not listed nor counted. */
  /** The keys this person may see and manage: all of the organization's for an admin, their own for a member. */
  async function personsKeys(page: PageContext) {
    return (await store.listApiKeys(page.account.id)).filter((key) => !isPlaygroundKey(key) && canManageKey({ role: page.role, personId: page.person.id }, key));
  }

  /** The key if it is one of the signed-in account's own; any other id (another account's, the playground's, made up) is "not found". */
  async function ownKey(page: PageContext, keyId: string | undefined) {
    const key = keyId ? await store.getApiKey(keyId) : null;
    const mine = key && key.accountId === page.account.id && !isPlaygroundKey(key) && canManageKey({ role: page.role, personId: page.person.id }, key);
    return mine ? key : null;
  }
  const noSuchKey = (event: H3Event) => errorPage(deps, event, 404, 'No such key', 'This key does not exist in your account.');

  router.get(
    `${app}/onboarding`,
    signedInPage(deps, async (event, page) => {
      // Verification, not a key count: a key made some other way (the CLI, before this check) confirms nothing.
      if (await verificationNeeded(deps, page.account.id)) return verifyEmailView(deps, page);
      const hasKey = (await personsKeys(page)).length > 0;
      const readiness = await callReadiness(deps, page.account);
      const providers = deps.config.providers.providers.map((provider) => ({ id: provider.id, name: provider.name, stored: readiness.providerKeys.includes(provider.id) }));
      return page.view('onboarding', {
        title: 'Get started',
        hasKey,
        openAlerts: await homeAlertViews(deps, page.account.id, page.timeZone),
        readiness,
        providers,
        firstProfile: page.plan?.routeProfiles[0] ?? null,
        testMessage: DEFAULT_PLAYGROUND_MESSAGE,
        upgradeUrl: `${linksOf(deps, event).baseUrl}/pricing`,
        ...deps.flash.take(event, page.session.id),
      });
    }),
  );
  router.post(
    `${app}/onboarding/key`,
    signedInAction(deps, async (event, page) => {
      // A second click (or a reload) must not make a second "first key".
      if ((await personsKeys(page)).length > 0) return redirectAfterPost(event, `${app}/keys`);
      if (await verificationNeeded(deps, page.account.id)) return redirectAfterPost(event, `${app}/onboarding`);
      const expiresAt = new Date(deps.clock.now() + 90 * 86_400_000).toISOString();
      const issued = await deps.keys.issue(page.account.id, 'first key', page.actor, { expiresAt, personId: page.person.id });
      return showNext(event, page, `${app}/onboarding`, { newKey: shown(issued, page.timeZone) });
    }),
  );

  router.post(
    `${app}/verify/resend`,
    signedInAction(deps, async (event, page) => {
      if (await verificationNeeded(deps, page.account.id)) sendVerificationLink(deps, (await store.getLogin(page.account.id))?.email ?? page.account.email, event);
      // The same answer within the limits or over them (mail-limits.ts): the page never says which.
      return verifyEmailView(deps, page, { notice: `We sent a new link; it replaces the earlier ones. At most ${MAIL_LIMITS.verify.perRecipient} links an hour are sent to one address.` });
    }),
  );

  router.get(`${app}/keys`, signedInPage(deps, (event, page) => keysView(page, { ...deps.flash.take(event, page.session.id) })));
  router.post(
    `${app}/keys`,
    signedInAction(deps, async (event, page, form) => {
      if (await verificationNeeded(deps, page.account.id)) return redirectAfterPost(event, `${app}/onboarding`);
      const name = (form.name ?? '').trim().slice(0, 60) || null;
      const days = form.expiresInDays ?? '';
      const limits = readLimits(page, form);
      // A clear choice on the form: anything but "management" makes an ordinary key; admins and owners only.
      const kind = form.kind === 'management' ? 'management' : 'inference';
      if (kind === 'management' && !mayMakeManagementKeys(page.role)) {
        return keysView(page, formProblem(`${app}/keys`, form, { kind: 'Only an admin or owner of the organization may create a management key: it can change every key of the organization.' }), 403);
      }
      const errors: Record<string, string> = {
        ...('errors' in limits ? limits.errors : {}),
        ...(days !== '' && !EXPIRY_DAYS.has(days) ? { expiresInDays: 'Choose an expiry from the list.' } : {}),
        ...(name !== null && isReservedKeyName(name) ? { name: 'That name is kept for the playground’s own key. Choose another.' } : {}),
      };
      const workspace = (await store.listWorkspaces(page.account.id)).find((candidate) => candidate.id === (form.workspace ?? ''));
      if (form.workspace !== undefined && !workspace) errors.workspace = 'Choose a workspace from the list.';
      if ('errors' in limits || errors.expiresInDays || errors.name || errors.workspace) return keysView(page, formProblem(`${app}/keys`, form, errors), 400);
      const expiresAt = days === '' ? null : new Date(deps.clock.now() + Number(days) * 86_400_000).toISOString();
      // The default chosen (or no choice): no workspace of its own, so the key follows the default.
      const workspaceId = workspace && !workspace.isDefault ? workspace.id : null;
      const issued = await deps.keys.issue(page.account.id, name, page.actor, { expiresAt, personId: page.person.id, kind, workspaceId });
      if (limits.monthlyRequests !== null || limits.requestsPerMinute !== null) await deps.keyLimits.set({ keyId: issued.record.id, ...limits }, page.actor);
      return showNext(event, page, `${app}/keys`, { newKey: shown(issued, page.timeZone), notice: 'Key created.' });
    }),
  );

  router.post(
    `${app}/keys/:id/rotate`,
    signedInAction(deps, async (event, page, form) => {
      const key = await ownKey(page, event.context.params?.id);
      if (!key) return noSuchKey(event);
      // A rotation makes a key too: not before the address is confirmed (a key from before the check can still be revoked).
      if (await verificationNeeded(deps, page.account.id)) return redirectAfterPost(event, `${app}/onboarding`);
      const grace = Number(form.graceSeconds ?? '0');
      if (!GRACE_SECONDS.has(grace)) return keysView(page, formProblem(`${app}/keys/${key.id}/rotate`, form, { graceSeconds: 'Choose a grace period from the list.' }), 400);
      const previous = rotating.get(key.id);
      const attempt = (async () => {
        await previous;
        const replacementId = await store.findReplacementKeyId(key.id);
        if (replacementId) {
          const replacement = await store.getApiKey(replacementId);
          return { already: replacement ? maskedKey(replacement) : 'its replacement' };
        }
        if (keyState(key, deps.clock.now(), false) !== 'live') return { retired: true };
        return { issued: await deps.keys.rotate(key.id, grace, page.actor) };
      })();
      rotating.set(key.id, attempt);
      try {
        const outcome = await attempt;
        if ('already' in outcome) return keysView(page, { notice: `This key was already rotated; its replacement is ${outcome.already}. No new key was made.` });
        if ('retired' in outcome) return keysView(page, { problem: 'This key is already revoked.' }, 409);
        const until = grace === 0 ? 'The old key stopped working now.' : `The old key keeps working until ${zonedTime(outcome.issued.revoked.expiresAt, page.timeZone)}.`;
        return showNext(event, page, `${app}/keys`, { newKey: shown(outcome.issued, page.timeZone), notice: `Key rotated; it keeps its name, expiry and own limits. ${until}` });
      } finally {
        if (rotating.get(key.id) === attempt) rotating.delete(key.id);
      }
    }),
  );

  router.get(
    `${app}/keys/:id/revoke`,
    signedInPage(deps, async (event, page) => {
      const key = await ownKey(page, event.context.params?.id);
      if (!key) return noSuchKey(event);
      return page.view('revoke', { title: 'Revoke key', key: { id: key.id, name: key.name, masked: maskedKey(key) } });
    }),
  );
  router.post(
    `${app}/keys/:id/revoke`,
    signedInAction(deps, async (event, page) => {
      const key = await ownKey(page, event.context.params?.id);
      if (!key) return noSuchKey(event);
      if (keyState(key, deps.clock.now(), false) === 'retired') return keysView(page, { notice: 'This key was already revoked.' });
      await deps.keys.revoke(key.id, page.actor);
      return keysView(page, { notice: `Key ${maskedKey(key)} revoked.` });
    }),
  );

  router.post(
    `${app}/keys/:id/workspace`,
    signedInAction(deps, async (event, page, form) => {
      const key = await ownKey(page, event.context.params?.id);
      if (!key) return noSuchKey(event);
      const workspace = (await store.listWorkspaces(page.account.id)).find((candidate) => candidate.id === (form.workspace ?? ''));
      if (!workspace) return keysView(page, formProblem(`${app}/keys/${key.id}/workspace`, form, { workspace: 'Choose a workspace from the list.' }), 400);
      await store.moveApiKeyToWorkspace(page.account.id, key.id, workspace.id, page.actor);
      // The verified key caches its workspace: forget it, so this instance's next request counts (and is budgeted) in the new one.
      deps.keys.forget([key.hash]);
      deps.controls.forget(page.account.id);
      return keysView(page, { notice: `Key ${maskedKey(key)} moved to ${workspace.name}: its budgets and guardrails are that workspace’s from now on.` });
    }),
  );

  router.post(
    `${app}/keys/:id/limits`,
    signedInAction(deps, async (event, page, form) => {
      const key = await ownKey(page, event.context.params?.id);
      if (!key) return noSuchKey(event);
      const limits = readLimits(page, form);
      if ('errors' in limits) return keysView(page, formProblem(`${app}/keys/${key.id}/limits`, form, limits.errors), 400);
      await deps.keyLimits.set({ keyId: key.id, ...limits }, page.actor);
      return keysView(page, { notice: `Limits of ${maskedKey(key)} saved.` });
    }),
  );
}
