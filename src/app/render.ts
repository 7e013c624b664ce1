/**
 * The one way the app produces HTML: Eta templates with auto-escaping on (`<%= %>` escapes; `<%~ %>`
 * is used only for HTML this app rendered itself, such as a nested template or an SVG chart).
 */
import { Eta } from 'eta';
import { TEMPLATE_DIR } from './asset-dirs.js';
import type { PublicLinks } from '../config/public-links.js';
import { formView, type FormState } from './form-state.js';
import type { ProviderAccessPromise } from './provider-access.js';
import type { SupportContact } from './support-contact.js';

export interface SiteInfo {
  name: string;
  baseUrl: string;
  appUrl: string;
  /** Paths (origin-relative) for links and forms. */
  app: string;
  docs: string;
  static: string;
  home: string;
  /** The operator's terms and privacy pages, when configured (app.legal). */
  legal: { terms?: string; privacy?: string };
  /** What this deployment's config makes true about provider keys (provider-access.ts), for the landing, sign-up and quick start. */
  access: ProviderAccessPromise;
  /** The operator's contact (app.support), or null when none is set. */
  support: SupportContact | null;
}

export class Renderer {
  readonly #eta = new Eta({ views: TEMPLATE_DIR, cache: true, autoEscape: true, defaultExtension: '.eta' });

  constructor(readonly site: SiteInfo) {}

  /**
   * `links`: the absolute links for the address the person is using (public-links.ts); every page passes
   * them (page-kit.ts `linksOf`), so the header, "Ask for Pro" and the snippets never send them to another
   * host name than the one their cookies belong to.
   */
  page(template: string, data: Record<string, unknown>, links?: PublicLinks): string {
    const site = links ? { ...this.site, baseUrl: links.baseUrl, appUrl: links.appUrl } : this.site;
    const apiBase = links ? { apiBase: links.apiBase } : {};
    // `form(action)`: each field's kept value, error and ARIA attributes (form-state.ts).
    return this.#eta.render(template, { site, signedIn: false, notice: null, problem: null, ...apiBase, ...data, form: formView(data.formState as FormState | undefined) });
  }

  /** A fragment (no layout), e.g. a chart, to embed in a page. */
  fragment(template: string, data: Record<string, unknown>): string {
    return this.#eta.render(template, data);
  }
}
