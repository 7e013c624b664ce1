/**
 * The billing page, the checkout paths (`{appUrl}/checkout?plan=…`, advertised by /pricing and the API's
 * upgradeUrl, and `{appUrl}/billing/checkout?plan=…`), the Customer Portal and the Stripe webhook.
 * Checkout and the portal are links (GET) that create a Stripe session for the signed-in account and
 * redirect to it: a POST could not, since the pages' CSP limits form targets to this site. Coming back
 * from checkout grants nothing; only a verified webhook changes a plan.
 */
import { sendRedirect, type H3Event, type Router } from 'h3';
import { describeError } from '../../core/describe-error.js';
import { setSecurityHeaders } from '../http-helpers.js';
import { errorPage, linksOf, signedInPage, type PageContext } from '../page-kit.js';
import { planCards, routeProfileTable } from '../plan-cards.js';
import type { WebDeps } from '../web-deps.js';
import { isPaying } from '../../billing/billing-lifecycle.js';
import type { CheckoutStart } from '../../billing/billing-service.js';
import { billingWebhook } from './billing-webhook.js';
import { subscriptionView } from './billing-views.js';

/** Keyed by the `checkout` query parameter: a Map, so `?checkout=constructor` finds nothing. */
const RETURN_NOTICES: ReadonlyMap<string, string> = new Map([
  ['success', 'Thank you. Your plan changes as soon as Stripe confirms the payment, usually within seconds: reload this page to see it.'],
  ['confirmed', 'Thank you: Stripe confirmed the payment and your plan is active.'],
  ['cancelled', 'Checkout was cancelled. Nothing was charged.'],
]);

const REFUSALS: Readonly<Record<string, string>> = {
  unknown_plan: 'There is no such plan.',
  not_for_sale: 'This plan cannot be bought online.',
  already_subscribed: 'You have a subscription already: change plans with Manage billing.',
};

export function registerBillingPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const billing = deps.billing;

  function billingPage(event: H3Event, page: PageContext, extra: Record<string, unknown> = {}, status?: number): string {
    const query = new URL(event.path, 'http://x').searchParams;
    const record = page.billingRecord;
    const returned = query.get('checkout') ?? '';
    // Back from Stripe: the webhook may have arrived first (the plan is on) or not yet (nothing is granted here).
    const notice = RETURN_NOTICES.get(returned === 'success' && isPaying(record?.status ?? null) ? 'confirmed' : returned) ?? null;
    const data: Record<string, unknown> = {
      title: 'Billing',
      billingOn: billing !== null,
      subscription: billing && record?.status ? subscriptionView(billing.service, deps.plans, record, page.account) : null,
      canManage: billing !== null && record?.customerId != null,
      plans: planCards(deps, page.account.plan, { subscribed: isPaying(record?.status ?? null), appUrl: linksOf(deps, event).appUrl }),
      routeTable: routeProfileTable(deps),
      notice,
      ...extra,
    };
    return page.view('billing', data, status ? { status } : {});
  }

  // `?plan=` is where a plan card's "Ask for …" leads when plans are not sold online.
  router.get(
    `${app}/billing`,
    signedInPage(deps, async (event, page) => {
      const asked = billing ? undefined : deps.plans.get(new URL(event.path, 'http://x').searchParams.get('plan') ?? '')?.name;
      return billingPage(event, page, asked ? { requestedPlan: asked } : {});
    }),
  );

  const checkout = signedInPage(deps, async (event, page) => {
    const planId = new URL(event.path, 'http://x').searchParams.get('plan') ?? '';
    if (!billing) return billingPage(event, page, { requestedPlan: deps.plans.get(planId)?.name });
    let started: CheckoutStart;
    try {
      started = await billing.service.startCheckout(page.account, planId);
    } catch (error) {
      deps.logger.error(`billing: could not create a checkout session for ${page.account.id} (${describeError(error)})`);
      return billingPage(event, page, { problem: 'Stripe could not be reached. Nothing was charged; try again in a moment.' }, 502);
    }
    if ('url' in started) {
      setSecurityHeaders(event);
      return sendRedirect(event, started.url, 303);
    }
    return billingPage(event, page, { problem: REFUSALS[started.refused] }, started.refused === 'already_subscribed' ? 409 : 400);
  });
  router.get(`${app}/checkout`, checkout);
  router.get(`${app}/billing/checkout`, checkout);

  if (!billing) return;
  router.get(
    `${app}/billing/portal`,
    signedInPage(deps, async (event, page) => {
      // A link another site placed must not open someone's billing: only this site's pages (or a typed address) may.
      const refused = deps.csrf.originProblem(event);
      if (refused) return errorPage(deps, event, 403, 'This link could not be followed', 'Open Manage billing from the billing page.');
      let url: string | null;
      try {
        url = await billing.service.portalUrl(page.account.id);
      } catch (error) {
        deps.logger.error(`billing: could not create a portal session for ${page.account.id} (${describeError(error)})`);
        return billingPage(event, page, { problem: 'Stripe could not be reached. Try again in a moment.' }, 502);
      }
      if (!url) return billingPage(event, page, { problem: 'There is no subscription to manage yet.' }, 404);
      setSecurityHeaders(event);
      return sendRedirect(event, url, 303);
    }),
  );
  router.post(`${app}/billing/webhook`, billingWebhook(deps, billing.service, billing.gateway));
}
