/**
 * The operator's terms and privacy Markdown as HTML that is safe to put in a page: marked renders the
 * Markdown; raw HTML in the file is shown as text (never markup), a link keeps its href only for
 * http(s), mailto or a same-site path or anchor, and an image becomes its alt text (the page's policy
 * loads no outside images anyway). Text and attributes are escaped by marked.
 */
import { Marked, type Tokens } from 'marked';

const SAFE_HREF = /^(https?:|mailto:|\/(?!\/)|#)/i;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      const href = token.href.trim();
      if (!SAFE_HREF.test(href)) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(href)}"${title}>${text}</a>`;
    },
    image(token: Tokens.Image): string {
      return escapeHtml(token.text);
    },
  },
});

export function renderLegalMarkdown(markdown: string): string {
  return marked.parse(markdown, { async: false }) as string;
}
