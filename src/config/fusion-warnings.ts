import type { RawConfigFiles } from './config-files.js';
import type { FileProblem } from './file-problem.js';

/**
 * A fusion panel whose members all call one provider is legal but loses most of the point (one outage
 * or one model family's blind spots take the whole panel): `router check` says so.
 */
export function fusionWarnings(files: Partial<RawConfigFiles>): FileProblem[] {
  const routes = files.routes?.routes ?? [];
  return routes.flatMap((route, r) => {
    const panel = route.fusion?.panel;
    if (!panel) return [];
    const providers = new Set(panel.flatMap((member) => member.tiers.flat().map((target) => target.provider)));
    if (providers.size !== 1) return [];
    return [
      {
        file: 'routes' as const,
        pointer: `/routes/${r}/fusion/panel`,
        target: 'value' as const,
        message: `route profile "${route.id}": every fusion panel member calls provider "${[...providers][0]}"; members on different providers survive an outage of one and disagree more usefully`,
      },
    ];
  });
}
