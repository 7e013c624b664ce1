import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderLegalMarkdown } from '../../../src/app/legal-markdown.js';

/** The tags marked writes for Markdown; anything else in the output would have come from the file. */
const MARKDOWN_TAGS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'a', 'em', 'strong', 'code', 'pre', 'blockquote', 'hr', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'del', 'input']);
const ATTRIBUTES = new Set(['href', 'title', 'start', 'align', 'type', 'checked', 'disabled', 'class', 'id']);

function markupOf(html: string): { tags: string[]; attributes: string[]; hrefs: string[] } {
  const tags = [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((match) => match[1]!.toLowerCase());
  const attributes = [...html.matchAll(/<[a-zA-Z][^>]*>/g)].flatMap((tag) => [...tag[0].matchAll(/\s([a-zA-Z-]+)(?==|\s|>|$)/g)].map((match) => match[1]!.toLowerCase()));
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!);
  return { tags, attributes, hrefs };
}

describe('renderLegalMarkdown', () => {
  it('renders headings, lists, emphasis and safe links', () => {
    const html = renderLegalMarkdown('# Terms\n\nWe **never** sell data.\n\n- one\n- two\n\n[Contact](mailto:legal@example.com) and [home](/app) and [site](https://example.com "Site").');
    expect(html).toContain('<h1>Terms</h1>');
    expect(html).toContain('<strong>never</strong>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<a href="mailto:legal@example.com">Contact</a>');
    expect(html).toContain('<a href="/app">home</a>');
    expect(html).toContain('<a href="https://example.com" title="Site">site</a>');
  });

  it('shows raw HTML as text and drops unsafe link targets and images', () => {
    const html = renderLegalMarkdown('<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)> here.\n\n[click](javascript:alert(1)) [data](data:text/html,hi) [proto](//evil.example)\n\n![logo](https://evil.example/x.png)');
    expect(html).not.toMatch(/<script|<img|javascript:|data:text|\/\/evil/i);
    expect(markupOf(html).tags.every((tag) => MARKDOWN_TAGS.has(tag))).toBe(true);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).not.toContain('<a');
    expect(html).toContain('click');
    expect(html).toContain('logo');
  });

  it('whatever the file holds, the output has only Markdown tags, known attributes and safe hrefs', () => {
    const pieces = fc.constantFrom('<', '>', '"', "'", '=', ' ', '\n', '[', ']', '(', ')', '!', '#', '*', '`', 'a', 'script', 'img', 'onload', 'href', 'javascript:', 'JaVaScRiPt:', 'data:', '//x', '/ok', 'https://x', 'mailto:y', '&#106;', '<div ', '</', '-->', '<!--', '\\', '|', '-');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 60 }), (parts) => {
        const { tags, attributes, hrefs } = markupOf(renderLegalMarkdown(parts.join('')));
        expect(tags.filter((tag) => !MARKDOWN_TAGS.has(tag))).toEqual([]);
        expect(attributes.filter((attribute) => !ATTRIBUTES.has(attribute))).toEqual([]);
        for (const href of hrefs) expect(href).toMatch(/^(https?:|mailto:|\/(?!\/)|#)/i);
      }),
      { numRuns: 400 },
    );
  });
});
