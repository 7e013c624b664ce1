/**
 * The two shapes of a signed-in page: a GET that renders (signed out → the sign-in page, deactivated →
 * the deactivated page) and a POST action that first passes the CSRF checks (origin, then the
 * per-session form token). Anonymous forms use `anonymousAction`.
 */
import { appendResponseHeader, eventHandler, getRequestHeader, setResponseHeader, type EventHandler, type H3Event } from 'h3';
import { publicLinks, type PublicLinks } from '../config/public-links.js';
import type { PlanConfig } from '../config/types.js';
import type { BillingRecord } from '../stores/billing-store.js';
import { pastDueBanner } from './billing/billing-views.js';
import { BodyTooLargeError, readForm, redirect, redirectAfterPost, sendHtml } from './http-helpers.js';
import { safeReturnPath } from './return-to.js';
import { timeZoneNames } from './usage-views.js';
import type { SignedIn } from './session-manager.js';
import { mayVisit, requiredRole, roleAllows } from './route-roles.js';
import { personActor } from '../stores/people-store.js';
import type { WebDeps } from './web-deps.js';

export interface PageContext extends SignedIn {
  /** The audit actor of this person (`person:<id>`): every change made from the app names it. */
  actor: string;
  csrfToken: string;
  plan: PlanConfig | undefined;
  /** The account's billing (null with billing off or before any subscription), due changes applied. */
  billingRecord: BillingRecord | null;
  /** The zone this page shows times in (time-zone.ts): the person's chosen one, UTC until they choose. */
  timeZone: string;
  /** Render a page in the signed-in layout. */
  view(template: string, data?: Record<string, unknown>, options?: { status?: number }): string;
}

const ZONE_NAMES = timeZoneNames();

const NAV = [
  ['/onboarding', 'Get started'],
  ['/playground', 'Playground'],
  ['/keys', 'API keys'],
  ['/presets', 'Presets'],
  ['/provider-keys', 'Provider keys'],
  ['/usage', 'Usage'],
  ['/members', 'Members'],
  ['/workspaces', 'Workspaces'],
  ['/guardrails', 'Guardrails'],
  ['/organization', 'Organization'],
  ['/billing', 'Billing'],
  ['/security', 'Security'],
  ['/support', 'Support'],
] as const;

/** The name an organization shows: its own, or its contact email until it has one. */
export function organizationName(account: { name: string | null; email: string }): string {
  return account.name ?? account.email;
}

function pageContext(deps: WebDeps, event: H3Event, signedIn: SignedIn, billingRecord: BillingRecord | null, organizations: Organizations): PageContext {
  const csrfToken = deps.csrf.sessionToken(signedIn.session.id);
  const plan = deps.plans.get(signedIn.account.plan);
  const current = event.path.split('?')[0]!;
  // Only the pages this role may open (route-roles.ts): a viewer never sees a link that answers 403.
  const accountNav = NAV.filter(([path]) => mayVisit(signedIn.role, path)).map(([path, label]) => ({ href: deps.paths.app + path, label, current: current === deps.paths.app + path }));
  const billingBanner = deps.billing ? pastDueBanner(deps.billing.service, deps.plans, billingRecord, signedIn.account) : null;
  // Back from signing in again after a form was posted on an ended session: its input goes back into it.
  const kept = event.method === 'GET' ? deps.keptForms.take(event, event.path) : null;
  const timeZone = deps.zones.resolve(event);
  const keptNotice = kept ? { notice: 'Your session had ended, so nothing was changed. What you typed is back in the form: check it and send it again.' } : {};
  return {
    ...signedIn,
    actor: personActor(signedIn.person.id),
    csrfToken,
    plan,
    billingRecord,
    timeZone,
    view: (template, data = {}, options = {}) =>
      sendHtml(
        event,
        deps.renderer.page(
          template,
          {
            signedIn: true,
          account: signedIn.account,
          planName: plan?.name ?? signedIn.account.plan,
          accountNav,
          billingBanner,
          csrf: csrfToken,
          viewer: { email: signedIn.person.email, csrf: csrfToken },
          organization: { name: organizationName(signedIn.account), role: signedIn.role, choices: organizations, switchAction: `${deps.paths.app}/organizations/switch`, current: current },
          // For the zone picker (time-zone-form.eta) on pages that show times.
          timeZone,
          zoneNames: ZONE_NAMES,
          ...(kept ? { formState: kept } : {}),
          ...keptNotice,
          ...data,
          },
          linksOf(deps, event),
        ),
        options,
      ),
  };
}

/** The absolute links for the address this request came to (config/public-links.ts): every page's header, snippets and mailed links. */
export function linksOf(deps: Pick<WebDeps, 'config'>, event: H3Event): PublicLinks {
  return publicLinks(deps.config.server, getRequestHeader(event, 'host'));
}

async function signedInOrRedirect(deps: WebDeps, event: H3Event): Promise<SignedIn | null> {
  const signedIn = await deps.sessions.resolve(event);
  if (!signedIn) {
    // A page asked for while signed out is where sign-in returns to; a form posted on an ended session
    // gets a sign-in page that says so, and its input is kept for the page it was posted from.
    if (event.method === 'GET') {
      await redirect(event, `${deps.paths.app}/signin?next=${encodeURIComponent(event.path)}`);
      return null;
    }
    const from = formPageOf(deps, event);
    const form = from ? await readFormOrNull(event) : null;
    if (from && form) deps.keptForms.put(event, from, event.path, form);
    await redirect(event, `${deps.paths.app}/signin?ended=1${from ? `&next=${encodeURIComponent(from)}` : ''}`);
    return null;
  }
  if (signedIn.account.status !== 'active') {
    await deps.store.deleteSessions(signedIn.account.id);
    deps.sessions.clearCookie(event);
    await redirect(event, `${deps.paths.app}/deactivated`);
    return null;
  }
  return signedIn;
}

/** The page a form was posted from (its same-origin Referer, a path of this app), or null. */
function formPageOf(deps: WebDeps, event: H3Event): string | null {
  const referer = getRequestHeader(event, 'referer');
  if (!referer) return null;
  try {
    const url = new URL(referer);
    if (url.origin !== new URL(getRequestHeader(event, 'origin') ?? referer).origin) return null;
    return safeReturnPath(deps.paths.app, url.pathname + url.search);
  } catch {
    return null;
  }
}

type Organizations = Array<{ id: string; name: string; role: string; current: boolean }>;

/** The person's active organizations, for the switcher in the header. */
async function organizationsOf(deps: WebDeps, signedIn: SignedIn): Promise<Organizations> {
  const memberships = await deps.store.listMemberships(signedIn.person.id);
  return memberships
    .filter((membership) => membership.account.status === 'active')
    .map((membership) => ({ id: membership.accountId, name: organizationName(membership.account), role: membership.role, current: membership.accountId === signedIn.account.id }));
}

/**
 * The role gate every signed-in page and form passes (route-roles.ts): null when the person's role in
 * the selected organization may use the route, else the 403 page saying which role it needs.
 */
async function roleRefusal(deps: WebDeps, event: H3Event, signedIn: SignedIn): Promise<string | null> {
  const pattern = (event.context.matchedRoute as { path?: string } | undefined)?.path ?? '';
  const route = pattern.startsWith(deps.paths.app) ? pattern.slice(deps.paths.app.length) : pattern;
  const needed = requiredRole(event.method, route);
  if (needed !== null && roleAllows(signedIn.role, needed)) return null;
  if (needed === null) deps.logger.error(`account app: ${event.method} ${route} has no role in route-roles.ts; refused`);
  const who = `You are ${signedIn.role === 'admin' || signedIn.role === 'owner' ? 'an' : 'a'} ${signedIn.role} of ${organizationName(signedIn.account)}`;
  const message = needed === null ? `${who}. This page is not open to anyone yet.` : `${who}; this needs the ${needed} role. Ask an owner or admin of the organization.`;
  // In the signed-in frame: the navigation shows what the role may open, and the header can switch organization.
  const page = pageContext(deps, event, signedIn, null, await organizationsOf(deps, signedIn));
  const heading = 'Not allowed for your role';
  return page.view('error-page', { title: heading, heading, message, back: deps.paths.app || '/' }, { status: 403 });
}

/** The signed-in account with its billing read, and any scheduled plan change that is due applied (the check on read). */
async function withBilling(deps: WebDeps, signedIn: SignedIn): Promise<{ signedIn: SignedIn; billing: BillingRecord | null }> {
  if (!deps.billing) return { signedIn, billing: null };
  const { record, account } = await deps.billing.service.current(signedIn.account);
  return { signedIn: { ...signedIn, account }, billing: record };
}

/**
 * Who the header shows on pages anyone may read (landing, pricing, docs, 404): the account menu for a
 * signed-in person, null otherwise. Such a page must then not be cached publicly (see `publicPage`).
 */
export async function viewerOf(deps: WebDeps, event: H3Event): Promise<{ email: string; csrf: string } | null> {
  const signedIn = await deps.sessions.resolve(event).catch(() => null);
  if (!signedIn || signedIn.account.status !== 'active') return null;
  return { email: signedIn.account.email, csrf: deps.csrf.sessionToken(signedIn.session.id) };
}

/** A page anyone may read, with the header of whoever reads it; cached publicly only for people signed out. */
export async function publicPage(deps: WebDeps, event: H3Event, template: string, data: Record<string, unknown>, options: { cacheable?: boolean; status?: number } = {}): Promise<string> {
  const viewer = await viewerOf(deps, event);
  const cacheable = (options.cacheable ?? true) && viewer === null;
  if (cacheable) setResponseHeader(event, 'cache-control', 'public, max-age=300');
  appendResponseHeader(event, 'vary', 'Cookie');
  return sendHtml(event, deps.renderer.page(template, { viewer, ...data }, linksOf(deps, event)), { cacheable, ...(options.status ? { status: options.status } : {}) });
}

export function signedInPage(deps: WebDeps, render: (event: H3Event, page: PageContext) => Promise<string | void>): EventHandler {
  return eventHandler(async (event) => {
    const resolved = await signedInOrRedirect(deps, event);
    if (!resolved) return;
    const refused = await roleRefusal(deps, event, resolved);
    if (refused !== null) return refused;
    const { signedIn, billing } = await withBilling(deps, resolved);
    return render(event, pageContext(deps, event, signedIn, billing, await organizationsOf(deps, signedIn)));
  });
}

export function signedInAction(
  deps: WebDeps,
  act: (event: H3Event, page: PageContext, form: Record<string, string>) => Promise<string | void>,
  options: { formLimitBytes?: number } = {},
): EventHandler {
  return eventHandler(async (event) => {
    const refused = deps.csrf.originProblem(event);
    if (refused) return forbidden(deps, event, refused);
    const resolved = await signedInOrRedirect(deps, event);
    if (!resolved) return;
    const form = await readFormOrNull(event, options.formLimitBytes);
    if (!form || !deps.csrf.verify(deps.csrf.sessionToken(resolved.session.id), form.csrf)) return forbidden(deps, event, 'missing or wrong form token');
    const notAllowed = await roleRefusal(deps, event, resolved);
    if (notAllowed !== null) return notAllowed;
    const { signedIn, billing } = await withBilling(deps, resolved);
    return act(event, pageContext(deps, event, signedIn, billing, await organizationsOf(deps, signedIn)), form);
  });
}

export function anonymousAction(deps: WebDeps, act: (event: H3Event, form: Record<string, string>) => Promise<string | void>): EventHandler {
  return eventHandler(async (event) => {
    const refused = deps.csrf.originProblem(event);
    if (refused) return forbidden(deps, event, refused);
    const form = await readFormOrNull(event);
    if (!form || !deps.csrf.verifyAnonymous(event, form.csrf)) return forbidden(deps, event, 'missing or wrong form token');
    return act(event, form);
  });
}

async function readFormOrNull(event: H3Event, limitBytes?: number): Promise<Record<string, string> | null> {
  try {
    return await readForm(event, limitBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return null;
    throw error;
  }
}

export function forbidden(deps: WebDeps, event: H3Event, reason: string): string {
  deps.logger.warn(`account app refused a form submission: ${reason}`);
  return errorPage(deps, event, 403, 'This form could not be accepted', 'The request did not come from this site’s own page, or the page was too old. Reload the page and try again.');
}

export function errorPage(deps: WebDeps, event: H3Event, status: number, heading: string, message: string): string {
  return sendHtml(event, deps.renderer.page('error-page', { title: heading, heading, message, back: deps.paths.app || '/' }, linksOf(deps, event)), { status });
}

export { redirectAfterPost };
