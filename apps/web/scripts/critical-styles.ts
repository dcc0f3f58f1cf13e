import Beasties from 'beasties';

/** The app's one stylesheet as Vite links it (cssCodeSplit: false), with its file name. */
const STYLESHEET_LINK = /<link rel="stylesheet"[^>]*href="\/(assets\/[^"]+\.css)"[^>]*>/;

/** The shell's price slot (src/app/Shell.tsx) and what the server writes beside it. */
const PRICE_SLOT = /<span class="skeleton" data-first-price=""[^>]*><\/span>/;
const SERVED_PRICE = '<strong class="num">$0.00</strong>';

type Bundle = Record<string, { type: string; source?: unknown }>;

/**
 * The page carries only the rules its prerendered shell uses (about 6 KB of the app's 45 KB), in
 * its head; the whole stylesheet is linked at the end of the body. On a slow phone the shell paints
 * after fewer bytes and less style work, and nothing waits on the stylesheet but the content after
 * it: the page's scripts run only once it has loaded (a script waits for the sheets before it), so
 * the app never renders a part unstyled. The server puts the whole stylesheet back inline when it
 * draws a returning wallet's dashboard in the page instead of the shell (first-page.ts).
 *
 * Beasties picks the rules whose selectors match the document; only the rules are taken from its
 * output, the page is edited here as a string (it re-serialises the markup it parses, and the
 * server finds its price slot by its exact text).
 */
export async function criticalStyles(html: string, bundle: Bundle): Promise<string> {
  const link = html.match(STYLESHEET_LINK);
  if (!link) throw new Error('index.html links no stylesheet of the build');
  const [tag, file] = link as unknown as [string, string];
  const asset = bundle[file];
  if (asset?.type !== 'asset' || asset.source == null) throw new Error(`${file} is not built`);
  const css =
    typeof asset.source === 'string'
      ? asset.source
      : new TextDecoder().decode(asset.source as Uint8Array);
  const beasties = new Beasties({
    path: '/',
    publicPath: '/',
    // the whole sheet stays a file of its own: the app needs every rule once it renders
    pruneSource: false,
    // the @keyframes the shell's rules name come along; the faces are added below
    keyframes: 'critical',
    logLevel: 'warn',
  });
  beasties.readFile = (name: string) => {
    if (name.replace(/^\/+/, '') !== file) throw new Error(`unexpected stylesheet ${name}`);
    return css;
  };
  // The server writes the price into the shell's slot (apps/server/src/http/first-page.ts): its
  // rules are picked as if it were there.
  const analysed = html.replace(PRICE_SLOT, (slot) => `${slot}${SERVED_PRICE}`);
  const processed = await beasties.process(analysed);
  const critical = processed.match(/<style>([\s\S]*?)<\/style>/)?.[1];
  if (!critical) throw new Error('no rule of the stylesheet matches the prerendered shell');
  // The text's faces (the metric-matched fallback): named through a custom property, which
  // Beasties cannot follow, and the shell's text is laid out in them.
  const faces = (css.match(/@font-face\s*\{[^}]*\}/g) ?? []).join('');
  const inline = `<style>${(faces + critical).replaceAll('</style', '<\\/style')}</style>`;
  if (!html.includes('</body>')) throw new Error('index.html has no </body>');
  return html.replace(tag, inline).replace('</body>', `${tag}</body>`);
}
