/** GET /model-catalog/{family}: a small human-readable catalog page per route family. */
import type { CatalogFamily, RouterConfig } from '../../config/types.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

export function renderCatalogPage(config: RouterConfig, family: CatalogFamily): string {
  const plans = config.plans.filter((plan) => plan.routeProfiles.includes(family.profile)).map((plan) => plan.name);
  const capabilities = Object.entries(family.capabilities)
    .map(([name, on]) => `<li>${escapeHtml(name)}: ${on ? 'yes' : 'no'}</li>`)
    .join('');
  const baseUrl = `${config.server.baseUrl}/v1`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(family.title)}</title></head>
<body>
<main>
<h1>${escapeHtml(family.title)}</h1>
<p>${escapeHtml(family.description)}</p>
<p>Model name: <code>${escapeHtml(family.profile)}</code></p>
<h2>Capabilities</h2><ul>${capabilities}</ul>
<h2>Plans</h2><p>${escapeHtml(plans.join(', ') || 'none')}</p>
<h2>Use it</h2>
<p>Set your client's base URL to <code>${escapeHtml(baseUrl)}</code>, send a generated <code>sk_router_</code> key as a Bearer token, and ask for <code>${escapeHtml(family.profile)}</code>. Keys are created at <a href="${escapeHtml(config.server.appUrl)}">${escapeHtml(config.server.appUrl)}</a>.</p>
<p><a href="${escapeHtml(config.server.baseUrl)}/model-catalog">All route families</a></p>
</main>
</body>
</html>
`;
}
