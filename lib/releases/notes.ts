import MarkdownIt from "markdown-it";

/** Longest release notes accepted (characters of Markdown). */
export const NOTES_MAX_CHARS = 20_000;

/**
 * Release notes are Markdown written by sellers and shown on public pages, so the renderer is locked down: raw HTML
 * is escaped (html: false), bare URLs stay text (linkify off), no typographic rewriting. markdown-it's validateLink
 * refuses javascript:, vbscript:, file: and data: (except a few image types) URLs; on top of that only http(s) and
 * mailto links are kept (anything else renders as its text), every link gets rel="nofollow ugc", and images are
 * rendered as plain links to the image, so a page showing notes never loads a remote resource.
 */
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;
const defaultValidate = md.validateLink.bind(md);
md.validateLink = (url: string) => defaultValidate(url) && SAFE_LINK.test(url.trim());

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx]?.attrSet("rel", "nofollow ugc");
  return self.renderToken(tokens, idx, options);
};

md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx];
  const src = String(token?.attrGet("src") ?? "");
  const alt = md.utils.escapeHtml(token?.content || src);
  // validateLink already ran for the src; an empty src means it was refused.
  if (!src) return alt;
  return `<a href="${md.utils.escapeHtml(src)}" rel="nofollow ugc">${alt}</a>`;
};

/** Renders release notes to HTML that is safe to insert into a page as is. */
export function renderNotes(markdown: string): string {
  return md.render(markdown);
}
