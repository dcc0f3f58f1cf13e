// jsdom has no layout: no matchMedia and no IntersectionObserver. Tests that depend on the screen
// width or on scrolling stand controllable fakes in their place.
import { act } from '@testing-library/react';
import { vi } from 'vitest';

let width = 1440;
const changeListeners = new Set<() => void>();

/** Evaluates the width features of a media query; any other query does not match. */
function matchesWidth(query: string): boolean {
  const max = /max-width:\s*(\d+)px/.exec(query);
  const min = /min-width:\s*(\d+)px/.exec(query);
  if (!max && !min) return false;
  return (!max || width <= Number(max[1])) && (!min || width >= Number(min[1]));
}

function fakeMatchMedia(query: string): MediaQueryList {
  const listeners = new Map<unknown, () => void>();
  const subscribe = (listener: unknown) => {
    if (typeof listener !== 'function') return;
    const notify = () =>
      (listener as (e: unknown) => void)({ matches: matchesWidth(query), media: query });
    listeners.set(listener, notify);
    changeListeners.add(notify);
  };
  const unsubscribe = (listener: unknown) => {
    const notify = listeners.get(listener);
    if (notify) changeListeners.delete(notify);
    listeners.delete(listener);
  };
  return {
    media: query,
    get matches() {
      return matchesWidth(query);
    },
    onchange: null,
    addEventListener: (_type: string, listener: unknown) => subscribe(listener),
    removeEventListener: (_type: string, listener: unknown) => unsubscribe(listener),
    addListener: subscribe,
    removeListener: unsubscribe,
    dispatchEvent: () => false,
  } as unknown as MediaQueryList;
}

/** Sets the viewport width matchMedia answers for, and tells every listening media query. */
export function setViewportWidth(px: number) {
  width = px;
  window.matchMedia = fakeMatchMedia;
  act(() => changeListeners.forEach((notify) => notify()));
}

/** Back to jsdom without matchMedia. */
export function resetViewport() {
  width = 1440;
  changeListeners.clear();
  delete (window as Partial<Window>).matchMedia;
}

/** An IntersectionObserver whose intersections the test triggers with scrollIntoView. */
class FakeIntersectionObserver {
  static live = new Set<FakeIntersectionObserver>();
  readonly root = null;
  readonly rootMargin = '';
  readonly thresholds = [0];
  private readonly targets = new Set<Element>();
  constructor(private readonly callback: IntersectionObserverCallback) {
    FakeIntersectionObserver.live.add(this);
  }
  observe(target: Element) {
    this.targets.add(target);
  }
  unobserve(target: Element) {
    this.targets.delete(target);
  }
  disconnect() {
    this.targets.clear();
    FakeIntersectionObserver.live.delete(this);
  }
  takeRecords(): IntersectionObserverEntry[] {
    return [];
  }
  /** reports the target as visible, if this observer watches it */
  intersect(target: Element): boolean {
    if (!this.targets.has(target)) return false;
    const rect = target.getBoundingClientRect();
    const entry = {
      target,
      isIntersecting: true,
      intersectionRatio: 1,
      boundingClientRect: rect,
      intersectionRect: rect,
      rootBounds: null,
      time: performance.now(),
    } as IntersectionObserverEntry;
    this.callback([entry], this as unknown as IntersectionObserver);
    return true;
  }
}

export function installIntersectionObserver() {
  FakeIntersectionObserver.live.clear();
  vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
}

/**
 * Scrolls an element into view for every observer watching it; returns how many observed it (0
 * means nothing was watching, which a test of infinite scroll should notice).
 */
export function scrollIntoView(target: Element): number {
  let seen = 0;
  act(() => {
    for (const observer of [...FakeIntersectionObserver.live])
      if (observer.intersect(target)) seen++;
  });
  return seen;
}
