// The product's own docs, served by the app (the Docs link pointed at another protocol's
// site): README.md, docs/design.md and docs/protocol.md rendered to static pages under /docs/ at
// build time (vite.config.ts emits them into dist/docs/). No script; the styles are inline (the
// CSP allows inline styles, not scripts). Raw HTML in the Markdown is escaped, not passed through.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import MarkdownIt from 'markdown-it';

const REPO = resolve(import.meta.dirname, '../../..');

/** Source file, page name under /docs/, and the title its navigation shows. */
export const DOC_PAGES = [
  { source: 'README.md', page: 'index.html', title: 'Overview' },
  { source: 'docs/design.md', page: 'design.html', title: 'Design' },
  { source: 'docs/protocol.md', page: 'protocol.html', title: 'Protocol' },
] as const;

const STYLE = `
:root{color-scheme:dark;--bg:#0b0e13;--surface:#12161d;--border:#262c37;--text:#e6e9ef;--muted:#8b93a3;--accent:#f7931a}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--text);font:16px/1.6 system-ui,-apple-system,"Segoe UI",sans-serif}
header{display:flex;flex-wrap:wrap;gap:8px 20px;align-items:center;padding:12px 20px;border-bottom:1px solid var(--border);background:var(--surface)}
header a{color:var(--muted);text-decoration:none}header a[aria-current=page],header a:hover{color:var(--text)}
.brand{color:var(--text);font-weight:700;margin-right:auto}
main{max-width:820px;margin:0 auto;padding:24px 20px 64px;overflow-wrap:anywhere}
a{color:var(--accent)}code{font-size:.9em;background:var(--surface);padding:1px 4px;border-radius:4px}
pre{background:var(--surface);border:1px solid var(--border);border-radius:8px;padding:12px;overflow-x:auto}pre code{padding:0}
table{border-collapse:collapse;display:block;overflow-x:auto;font-size:.9em}th,td{border:1px solid var(--border);padding:6px 8px;text-align:left;vertical-align:top}
img{max-width:100%}h1,h2,h3{line-height:1.25}
`;

/** Links between the rendered files point at their pages; anything else in the repo, at nothing. */
function rewriteHref(href: string): string {
  if (/^[a-z]+:|^#|^\//i.test(href)) return href;
  const [path = '', hash] = href.split('#');
  const target =
    DOC_PAGES.find((d) => d.source === path.replace(/^\.\.\//, '').replace(/^\.\//, '')) ??
    DOC_PAGES.find((d) => `docs/${path}` === d.source);
  return target ? `${target.page}${hash ? `#${hash}` : ''}` : href;
}

export function renderDocPages(): { fileName: string; source: string }[] {
  const md = new MarkdownIt({ html: false, linkify: true });
  // Only links with a scheme: 'SPEC.md' is a file name, not a site in Moldova.
  md.linkify.set({ fuzzyLink: false });
  const defaultLink =
    md.renderer.rules.link_open ??
    ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const href = token.attrGet('href');
    if (href) token.attrSet('href', rewriteHref(href));
    return defaultLink(tokens, idx, options, env, self);
  };
  return DOC_PAGES.map((doc) => {
    const body = md.render(readFileSync(resolve(REPO, doc.source), 'utf8'));
    const nav = DOC_PAGES.map(
      (d) =>
        `<a href="${d.page}"${d.page === doc.page ? ' aria-current="page"' : ''}>${d.title}</a>`,
    ).join('');
    const source = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/svg+xml" href="/favicon.svg"><title>UNIT docs: ${doc.title}</title><style>${STYLE}</style></head>
<body><header><a class="brand" href="/">UNIT</a><nav aria-label="Docs">${nav}</nav></header><main>${body}</main></body></html>
`;
    return { fileName: `docs/${doc.page}`, source };
  });
}
