/**
 * The one way the app produces HTML: Eta templates with auto-escaping on (`<%= %>` escapes; `<%~ %>`
 * is used only for HTML this app rendered itself, such as a nested template or an SVG chart).
 */
import { Eta } from 'eta';
import { TEMPLATE_DIR } from './asset-dirs.js';
import { formView, type FormState } from './form-state.js';

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
}

export class Renderer {
  readonly #eta = new Eta({ views: TEMPLATE_DIR, cache: true, autoEscape: true, defaultExtension: '.eta' });

  constructor(readonly site: SiteInfo) {}

  page(template: string, data: Record<string, unknown>): string {
    // `form(action)`: each field's kept value, error and ARIA attributes (form-state.ts).
    return this.#eta.render(template, { site: this.site, signedIn: false, notice: null, problem: null, ...data, form: formView(data.formState as FormState | undefined) });
  }

  /** A fragment (no layout), e.g. a chart, to embed in a page. */
  fragment(template: string, data: Record<string, unknown>): string {
    return this.#eta.render(template, data);
  }
}
