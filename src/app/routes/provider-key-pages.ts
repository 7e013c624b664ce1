/** Bring-your-own provider keys: add, replace, remove, and a one-call test through the router's adapters. */
import type { H3Event, Router } from 'h3';
import { isKeyRejection } from '../../alerts/alert-rules.js';
import { openSecret, sealSecret } from '../../core/secret-box.js';
import { verificationNeeded, verifyEmailView } from '../email-verification.js';
import { formProblem } from '../form-state.js';
import type { Flash } from '../key-flash.js';
import { providerKeyRejection } from '../provider-key-rejection.js';
import { describeCredentialTest } from '../credential-test-verdict.js';
import { zonedTime } from '../time-zone.js';
import { errorPage, redirectAfterPost, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import type { WebDeps } from '../web-deps.js';

const TEST_EVERY_MS = 5_000;
const TEST_TIMEOUT_MS = 15_000;

export function registerProviderKeyPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store } = deps;
  const secret = deps.config.server.secretKey?.reveal();
  const providers = deps.config.providers.providers;
  /** The model a test call asks for: the first one any route profile uses with this provider. */
  const testModel = new Map<string, string>();
  for (const route of deps.config.routes) for (const target of route.tiers.flat()) if (!testModel.has(target.provider)) testModel.set(target.provider, target.model);
  const lastTest = new Map<string, number>();

  async function view(page: PageContext, extra: Record<string, unknown> = {}, status?: number): Promise<string> {
    const stored = new Map((await store.listProviderKeys(page.account.id)).map((record) => [record.providerId, record]));
    const rows = providers.map((provider) => {
      const record = stored.get(provider.id);
      if (!record) return { id: provider.id, name: provider.name, stored: null };
      const rejection = providerKeyRejection(deps.credentialHealth, page.account.id, record);
      return {
        id: provider.id,
        name: provider.name,
        stored: {
          last4: record.last4,
          updatedAt: record.updatedAt,
          updatedLabel: zonedTime(record.updatedAt, page.timeZone),
          rejected: rejection && { status: rejection.status, at: rejection.at, label: zonedTime(rejection.at, page.timeZone) },
        },
      };
    });
    const problem = secret ? undefined : 'Provider keys cannot be stored here yet: the service is not set up to encrypt them. Contact support; your other keys and usage are not affected.';
    return page.view('provider-keys', { title: 'Provider keys', providers: rows, problem, ...extra }, status ? { status } : {});
  }

  /** Onboarding's inline provider-key step posts here too, with `next=onboarding`: answer by going back there. */
  const fromOnboarding = (form: Record<string, string>) => form.next === 'onboarding';
  const backToOnboarding = (event: H3Event, page: PageContext, message: Flash) => {
    deps.flash.put(event, page.session.id, message);
    return redirectAfterPost(event, `${app}/onboarding#step-provider`);
  };

  const knownProvider = (id: string | undefined) => providers.find((provider) => provider.id === id);
  const noSuchProvider = (event: H3Event) => errorPage(deps, event, 404, 'No such provider', 'This router does not route to that provider.');

  router.get(`${app}/provider-keys`, signedInPage(deps, (event, page) => view(page, { ...deps.flash.take(event, page.session.id) })));
  /**
   * A Test answers post-redirect-get: its result shown once (the flash), and a reload never calls the
   * provider again. To the page's top, where the flash is, not to the key's card: at 375 px a fragment
   * would scroll the result out of sight (the result names the provider).
   */
  const afterTest = (event: H3Event, page: PageContext, form: Record<string, string>, message: Flash) => {
    if (fromOnboarding(form)) return backToOnboarding(event, page, message);
    deps.flash.put(event, page.session.id, message);
    return redirectAfterPost(event, `${app}/provider-keys`);
  };
  router.post(
    `${app}/provider-keys`,
    signedInAction(deps, async (event, page, form) => {
      const provider = knownProvider(form.provider);
      if (!provider) return noSuchProvider(event);
      const key = (form.key ?? '').trim();
      if (!secret) return view(page, {}, 503);
      // At this provider's field (its form is told apart by the provider); the key itself is never written back.
      if (key.length < 8 || key.length > 512 || /\s/.test(key)) {
        const error = { key: 'That does not look like a provider key: paste it whole, without spaces.' };
        // Onboarding's form is its one form posting to /provider-keys; it gets its error back there, its provider kept.
        if (fromOnboarding(form)) return backToOnboarding(event, page, formProblem(`${app}/provider-keys`, form, error));
        return view(page, formProblem(`${app}/provider-keys/${provider.id}`, form, error), 400);
      }
      await store.setProviderKey({ accountId: page.account.id, providerId: provider.id, sealed: sealSecret(key, secret), last4: key.slice(-4) }, page.actor);
      deps.credentialHealth.forget(page.account.id, provider.id);
      const saved = `${provider.name} key ending in ${key.slice(-4)} saved. New requests use it within seconds.`;
      if (fromOnboarding(form)) return backToOnboarding(event, page, { notice: `${saved} Test it next.` });
      return view(page, { notice: saved });
    }),
  );
  router.post(
    `${app}/provider-keys/:provider/remove`,
    signedInAction(deps, async (event, page) => {
      const provider = knownProvider(event.context.params?.provider);
      if (!provider) return noSuchProvider(event);
      const removed = await store.removeProviderKey(page.account.id, provider.id, page.actor);
      deps.credentialHealth.forget(page.account.id, provider.id);
      return view(page, { notice: removed ? `${provider.name} key removed.` : `No ${provider.name} key was stored.` });
    }),
  );
  router.post(
    `${app}/provider-keys/:provider/test`,
    signedInAction(deps, async (event, page, form) => {
      const provider = knownProvider(event.context.params?.provider);
      if (!provider) return noSuchProvider(event);
      // A test is a real call with the person's key on our outbound connection: only for a confirmed address.
      if (await verificationNeeded(deps, page.account.id)) {
        return verifyEmailView(deps, page, { notice: `Confirm your email address first, then test your ${provider.name} key.` }, 403);
      }
      const record = (await store.listProviderKeys(page.account.id)).find((entry) => entry.providerId === provider.id);
      if (!record || !secret) return afterTest(event, page, form, { problem: `No ${provider.name} key is stored to test.` });
      const now = deps.clock.now();
      const throttleKey = `${page.account.id}:${provider.id}`;
      if (now - (lastTest.get(throttleKey) ?? -Infinity) < TEST_EVERY_MS) {
        return afterTest(event, page, form, { problem: 'Wait a few seconds between tests.' });
      }
      lastTest.set(throttleKey, now);
      const model = testModel.get(provider.id) ?? 'test';
      const credential = openSecret(record.sealed, secret);
      const outcome = await deps.engine.testCredential(provider.id, model, credential, AbortSignal.timeout(TEST_TIMEOUT_MS));
      const { verdict, text } = describeCredentialTest(provider.name, outcome);
      await store.recordAuditEvent({ actor: page.actor, action: 'provider_key.test', accountId: page.account.id, details: { providerId: provider.id, ok: outcome.ok, verdict } });
      // The provider accepts the key now: live traffic may use it again at once.
      if (outcome.ok) deps.credentialHealth.forget(page.account.id, provider.id);
      // The provider rejects it: marked as live traffic would mark it (shown failing, then skipped once
      // the credential's circuit opens) and the same alert (and email) as a rejection in live traffic.
      else if (isKeyRejection(outcome.status)) {
        deps.credentialHealth.recordFailure(page.account.id, provider.id, credential, { status: outcome.status });
        await deps.alerts.raiseProviderKeyRejected(page.account.id, provider.id, { status: outcome.status, at: now }, 'test');
      }
      return afterTest(event, page, form, outcome.ok ? { notice: text } : { problem: text });
    }),
  );
}
