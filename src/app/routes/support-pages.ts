/**
 * The support page: what to include and never include, the operator's contact (`app.support`), a
 * signed-in contact form that mails the operator when the contact is an email and mail can be sent, and
 * the redacted support bundle of one request. The form is counted by the mail limits (per person and per
 * client address, mail-limits.ts) and answers with post-redirect-get; what a person writes goes only into
 * the mail (support-contact.ts), never into a log.
 */
import { eventHandler, setResponseHeader, type H3Event, type Router } from 'h3';
import { loadTeamDirectory } from '../../usage/usage-attribution.js';
import { sendHtml, setSecurityHeaders } from '../http-helpers.js';
import { formProblem } from '../form-state.js';
import { linksOf, organizationName, redirectAfterPost, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import { MAIL_LIMITS } from '../mail-limits.js';
import { MESSAGE_MAX, SUBJECT_MAX, readSupportRequest, supportContact, supportMessage } from '../support-contact.js';
import { isRequestId } from '../usage-views.js';
import type { WebDeps } from '../web-deps.js';

export function registerSupportPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const contactAction = `${app}/support/contact`;
  const searchOf = (event: H3Event) => new URL(event.path, 'http://x').searchParams;
  const contact = supportContact(deps.config.server.app.support);
  /** The form is offered only where it can deliver: an email contact and a mailer that sends. */
  const formTo = contact?.kind === 'email' && deps.mail.sends ? contact.address : null;
  const contactView = { contact, form: formTo !== null, subjectMax: SUBJECT_MAX, messageMax: MESSAGE_MAX, action: contactAction };

  /** A member's own requests only, on the support page as on the usage page; everyone else's view is unscoped. */
  async function ownView(page: PageContext) {
    return page.role === 'member' ? { directory: await loadTeamDirectory(deps.store, page.account.id), scope: { personId: page.person.id } } : undefined;
  }

  async function supportView(page: PageContext, extra: Record<string, unknown> = {}, status?: number) {
    const recent = await deps.ledger.recentRequests(page.account.id, 10, await ownView(page));
    const bundle = { recording: deps.ledger.recording, recent: recent.map((record) => record.requestId) };
    return page.view('support', { title: 'Support', bundle, support: { ...contactView, signedIn: true }, ...extra }, status ? { status } : {});
  }

  router.get(
    `${app}/support`,
    eventHandler(async (event) => {
      // The page is for everyone; the contact form and the bundle only for a signed-in person.
      if (!(await deps.sessions.resolve(event))) return sendHtml(event, deps.renderer.page('support', { title: 'Support', bundle: null, support: { ...contactView, signedIn: false } }, linksOf(deps, event)));
      return signedInPage(deps, (_event, page) => {
        const query = searchOf(event);
        const requested = query.get('request') ?? '';
        const sent = query.get('sent') === '1' && formTo !== null ? { notice: `Your message was sent to ${formTo}. The reply will come to ${page.person.email}.` } : {};
        // A link may suggest a subject ("Ask for Pro" from billing); bounded like the field.
        const subject = (query.get('subject') ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, SUBJECT_MAX);
        return supportView(page, { requestId: isRequestId(requested) ? requested : '', subject, ...sent });
      })(event);
    }),
  );

  router.post(
    contactAction,
    signedInAction(deps, async (event, page, form) => {
      if (formTo === null) return supportView(page, { problem: 'This service has no support address to mail: use the contact shown on this page.' }, 409);
      const read = readSupportRequest(form);
      if ('errors' in read) return supportView(page, formProblem(contactAction, form, read.errors), 400);
      // Counted before anything is sent; over the limit the person is told, and what they typed stays in the form.
      if (!(await deps.strangerMail.allow('support', page.person.email, deps.clientAddress(event)))) {
        const limit = MAIL_LIMITS.support.perRecipient;
        return supportView(page, formProblem(contactAction, form, { message: `You have sent the most messages this form takes in an hour (${limit} from you, or more from your network). Try again later, or write to ${formTo} from your own mail.` }), 429);
      }
      const from = { email: page.person.email, organization: organizationName(page.account), accountId: page.account.id, plan: page.plan?.name ?? page.account.plan, role: page.role };
      deps.mail.sendLater('support message', async () => supportMessage(formTo, read.request, from));
      return redirectAfterPost(event, `${app}/support?sent=1#contact`);
    }),
  );

  router.post(
    `${app}/support/bundle`,
    signedInAction(deps, async (event, page, form) => {
      const requestId = (form.requestId ?? '').trim();
      // At the field, what was typed kept (form-state.ts).
      const atField = (error: string, status: number) => supportView(page, formProblem(`${app}/support/bundle`, { requestId }, { requestId: error }), status);
      if (!isRequestId(requestId)) return atField('A request id is up to 128 letters, digits and . _ : - (the X-Request-Id header of a response).', 400);
      // Another account's request id answers exactly as a made-up one does.
      const bundle = await deps.ledger.supportBundle(page.account.id, requestId, await ownView(page));
      if (!bundle) return atField(`No request ${requestId} was recorded for this account.`, 404);
      setSecurityHeaders(event);
      setResponseHeader(event, 'content-type', 'application/json; charset=utf-8');
      setResponseHeader(event, 'content-disposition', `attachment; filename="support-bundle-${requestId.replace(/[^A-Za-z0-9._-]/g, '_')}.json"`);
      return `${JSON.stringify(bundle, null, 2)}\n`;
    }),
  );
}
