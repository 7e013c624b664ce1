/**
 * The operator's own terms of service and privacy notice (app.legal in server.yaml), at
 * {appUrl}/terms and {appUrl}/privacy: Markdown files read and rendered once at start-up
 * (legal-markdown.ts), linked from every page's footer and from the sign-up form.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventHandler, type Router } from 'h3';
import type { LegalPages } from '../../config/types.js';
import { renderLegalMarkdown } from '../legal-markdown.js';
import { publicPage } from '../page-kit.js';
import type { WebDeps } from '../web-deps.js';

const TITLES: Record<keyof LegalPages, string> = { terms: 'Terms of service', privacy: 'Privacy notice' };

/** Where each configured page is served (origin-relative), for the footer and the sign-up form. */
export function legalLinks(appPath: string, legal: LegalPages): Partial<Record<keyof LegalPages, string>> {
  return Object.fromEntries((Object.keys(TITLES) as (keyof LegalPages)[]).filter((page) => legal[page] !== undefined).map((page) => [page, `${appPath}/${page}`]));
}

export function registerLegalPages(router: Router, deps: WebDeps): void {
  const { legal } = deps.config.server.app;
  for (const page of Object.keys(TITLES) as (keyof LegalPages)[]) {
    const file = legal[page];
    if (file === undefined) continue;
    // `router check` and the start-up have made sure the file is there (config/legal-page-checks.ts).
    const body = renderLegalMarkdown(readFileSync(resolve(deps.config.dir, file), 'utf8'));
    router.get(`${deps.paths.app}/${page}`, eventHandler((event) => publicPage(deps, event, 'legal', { title: TITLES[page], legalBody: body })));
  }
}
