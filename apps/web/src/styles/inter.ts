// Inter joins the page once it has loaded: its 48 KB came over a phone's link alongside the code
// and data of the first screen and delayed them. Meanwhile, and where script never runs, the text
// is set in 'Inter Fallback' (tokens.css), scaled to Inter's metrics, so the swap moves nothing.
import interUrl from '@fontsource-variable/inter/files/inter-latin-wght-normal.woff2?url';

const LATIN =
  'U+0000-00FF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, U+02DC, U+0304, U+0308, ' +
  'U+0329, U+2000-206F, U+20AC, U+2122, U+2191, U+2193, U+2212, U+2215, U+FEFF, U+FFFD';

function addInter(): void {
  const face = new FontFace('Inter Variable', `url(${interUrl}) format('woff2-variations')`, {
    style: 'normal',
    weight: '100 900',
    display: 'swap',
    unicodeRange: LATIN,
  });
  document.fonts.add(face);
  // a font that fails to load leaves the fallback, which already reads the same
  face.load().catch(() => undefined);
}

/**
 * After the page's load and after `ready` (the app's: once it replaced the prerendered shell, so
 * the text it paints in place of the shell's is set in the same face and is not a larger, later
 * "largest contentful paint" than the one the shell already made).
 */
export function loadInterAfterPageLoad(ready: (run: () => void) => void = (run) => run()): void {
  if (typeof FontFace === 'undefined' || typeof document === 'undefined' || !document.fonts) return;
  const add = () => ready(addInter);
  if (document.readyState === 'complete') add();
  else window.addEventListener('load', add, { once: true });
}
