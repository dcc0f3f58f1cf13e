import { useEffect, type RefObject } from 'react';

/**
 * Keeps `--header-height` on the document at the sticky header's height, which the page's
 * scroll-padding-top reads (layout.css): an element scrolled into view (by the keyboard's focus,
 * a link to an anchor or a drawer's field) stops below the header instead of under it. On a phone
 * the header is three lines (about 150 px at 360 px wide), and it wraps further with a larger font.
 */
export function useHeaderOffset(header: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const el = header.current;
    if (!el || typeof ResizeObserver !== 'function') return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() =>
      root.style.setProperty('--header-height', `${el.offsetHeight}px`),
    );
    observer.observe(el);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--header-height');
    };
  }, [header]);
}
