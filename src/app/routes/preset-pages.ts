/**
 * Presets (`@preset/<slug>`): members read the organization's presets with their version history;
 * admins and owners create them (or add a version) from a JSON configuration and delete them. Input is
 * judged by the same preset service as /v1/presets and the CLI; changes are audited as the person.
 */
import type { Router } from 'h3';
import { PresetInputError, createPresetService } from '../../accounts/preset-service.js';
import { PresetLimitError, PRESETS_PER_ORGANIZATION_MAX } from '../../stores/preset-store.js';
import { formProblem } from '../form-state.js';
import { errorPage, redirectAfterPost, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import { roleAllows } from '../route-roles.js';
import { zonedTime } from '../time-zone.js';
import type { WebDeps } from '../web-deps.js';

const EXAMPLE = JSON.stringify({ model: 'router/frontier', system: 'You review code tersely.', temperature: 0.2, max_tokens: 2000 }, null, 2);

export function registerPresetPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store } = deps;
  const presets = createPresetService(store);

  async function view(page: PageContext, extra: Record<string, unknown> = {}, status?: number): Promise<string> {
    const { presets: list } = await store.listPresets(page.account.id, { offset: 0, limit: PRESETS_PER_ORGANIZATION_MAX });
    const rows = await Promise.all(
      list.map(async (preset) => ({
        slug: preset.slug,
        name: preset.name,
        description: preset.description,
        status: preset.status,
        currentVersion: preset.currentVersion,
        versions: ((await store.listPresetVersions(page.account.id, preset.slug)) ?? []).map((version) => ({
          version: version.version,
          createdLabel: zonedTime(version.createdAt, page.timeZone),
          createdAt: version.createdAt,
          createdBy: version.createdBy,
          config: JSON.stringify(version.config, null, 2),
        })),
      })),
    );
    return page.view('presets', { title: 'Presets', presets: rows, manages: roleAllows(page.role, 'admin'), example: EXAMPLE, ...extra }, status ? { status } : {});
  }

  router.get(`${app}/presets`, signedInPage(deps, (event, page) => view(page, { ...deps.flash.take(event, page.session.id) })));

  router.post(
    `${app}/presets`,
    signedInAction(deps, async (event, page, form) => {
      const action = `${app}/presets`;
      let config: unknown;
      try {
        config = JSON.parse(form.config ?? '');
      } catch {
        return view(page, formProblem(action, form, { config: 'Write the configuration as a JSON object, e.g. {"model": "router/frontier", "temperature": 0.2}.' }), 400);
      }
      const name = (form.name ?? '').trim();
      const description = (form.description ?? '').trim();
      try {
        const saved = await presets.save(
          { accountId: page.account.id, slug: (form.slug ?? '').trim(), config, creatorPersonId: page.person.id, ...(name ? { name } : {}), ...(description ? { description } : {}) },
          page.actor,
        );
        deps.flash.put(event, page.session.id, { notice: `${saved.created ? 'Created' : 'Saved'} @preset/${saved.preset.slug}: version ${saved.version.version} is current.` });
        return redirectAfterPost(event, `${app}/presets#preset-${saved.preset.slug}`);
      } catch (error) {
        if (error instanceof PresetInputError) return view(page, formProblem(action, form, { [error.field.startsWith('config') ? 'config' : error.field]: error.message }), 400);
        if (error instanceof PresetLimitError) return view(page, { problem: error.message }, 400);
        throw error;
      }
    }),
  );

  router.post(
    `${app}/presets/:slug/delete`,
    signedInAction(deps, async (event, page) => {
      const slug = event.context.params?.slug ?? '';
      if (!(await store.deletePreset(page.account.id, slug, page.actor))) return errorPage(deps, event, 404, 'No such preset', 'This organization has no preset by that name.');
      deps.flash.put(event, page.session.id, { notice: `Deleted @preset/${slug}.` });
      return redirectAfterPost(event, `${app}/presets`);
    }),
  );
}
