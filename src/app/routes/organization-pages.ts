/**
 * Organization settings: its name (admins), transferring ownership and deleting it (owners). Deleting
 * is the existing deactivation (keys stop, sessions end, billing and usage kept for the operator).
 */
import type { Router } from 'h3';
import { LastOwnerError } from '../../stores/people-store.js';
import { formProblem } from '../form-state.js';
import { organizationName, redirectAfterPost, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import type { WebDeps } from '../web-deps.js';

export function registerOrganizationPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store } = deps;

  async function view(page: PageContext, extra: Record<string, unknown> = {}, status?: number): Promise<string> {
    const members = await store.listMembers(page.account.id);
    return page.view(
      'organization',
      {
        title: 'Organization',
        organizationName: organizationName(page.account),
        currentName: page.account.name ?? '',
        isOwner: page.role === 'owner',
        successors: members.filter((member) => member.personId !== page.person.id).map((member) => ({ personId: member.personId, email: member.email, role: member.role })),
        ...extra,
      },
      status ? { status } : {},
    );
  }

  router.get(`${app}/organization`, signedInPage(deps, (_event, page) => view(page)));

  router.post(
    `${app}/organization/name`,
    signedInAction(deps, async (_event, page, form) => {
      const name = (form.name ?? '').trim();
      if (name.length > 80) return view(page, formProblem(`${app}/organization/name`, form, { name: 'Use at most 80 characters.' }), 400);
      const renamed = await store.renameAccount(page.account.id, name === '' ? null : name, page.actor);
      return view({ ...page, account: renamed }, { notice: name === '' ? 'Name cleared: the organization shows its email.' : `Renamed to ${name}.` });
    }),
  );

  router.post(
    `${app}/organization/transfer`,
    signedInAction(deps, async (event, page, form) => {
      const to = form.person ?? '';
      const target = await store.getMembership(page.account.id, to);
      if (!target || to === page.person.id) return view(page, { problem: 'Choose another member of the organization.' }, 400);
      // The new owner first, then this one steps down to admin: there is an owner at every moment.
      await store.setMemberRole(page.account.id, to, 'owner', page.actor);
      try {
        await store.setMemberRole(page.account.id, page.person.id, 'admin', page.actor);
      } catch (error) {
        if (!(error instanceof LastOwnerError)) throw error;
      }
      return redirectAfterPost(event, `${app}/members`);
    }),
  );

  router.post(
    `${app}/organization/delete`,
    signedInAction(deps, async (event, page, form) => {
      if ((form.confirm ?? '').trim() !== organizationName(page.account)) {
        return view(page, formProblem(`${app}/organization/delete`, form, { confirm: `Type ${organizationName(page.account)} exactly to confirm.` }), 400);
      }
      await store.deactivateAccount(page.account.id, page.actor);
      deps.sessions.clearCookie(event);
      return redirectAfterPost(event, `${app}/deactivated`);
    }),
  );
}
