/**
 * docs/architecture.md's folder graph is generated from dependency-cruiser's graph of src/ and must
 * equal what the code imports today. `npm run architecture` runs this file with
 * ROUTER_UPDATE_ARCHITECTURE=1, which rewrites the section instead of failing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { architectureDoc, cruiseSrc, currentSection, folderGraph, mayImport, renderFolderGraph, repoRoot } from './folder-graph.js';

describe('the folder graph in docs/architecture.md', () => {
  it('collapses imports to folders, marking arrows whose every import is type-only', async () => {
    const graph = folderGraph(await cruiseSrc(`${repoRoot}test/architecture/fixtures/layering`));
    const section = renderFolderGraph(graph, ['http', 'translators', 'core']);
    expect(section).toContain('| `http/` | runtime | nothing |');
    expect(section).toContain('| `translators/` | formats (types) | nothing |');
    expect(section).toContain('  http --> runtime');
    expect(section).toContain('  core -.-> formats');
    expect(section).not.toContain('stores -'); // an import within a folder is no arrow
    // Folders the layer order does not name come last, alphabetically.
    expect(section.indexOf('| `core/`')).toBeLessThan(section.indexOf('| `formats/`'));
    expect(section.indexOf('| `translators/`')).toBeLessThan(section.indexOf('| `core/`'));
  }, 60_000);

  it('is what the code imports today (npm run architecture rewrites it)', async () => {
    const doc = readFileSync(architectureDoc, 'utf8');
    const current = currentSection(doc);
    if (current === undefined) throw new Error('docs/architecture.md lost its folder-graph markers');
    const generated = renderFolderGraph(folderGraph(await cruiseSrc()), Object.keys(mayImport()));
    if (process.env.ROUTER_UPDATE_ARCHITECTURE === '1' && current !== generated) {
      writeFileSync(architectureDoc, doc.replace(current, () => generated));
      console.log('docs/architecture.md: folder graph rewritten');
      return;
    }
    expect(current, 'docs/architecture.md is behind the code: run npm run architecture').toBe(generated);
  }, 120_000);
});
