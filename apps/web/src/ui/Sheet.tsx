import { lazy, Suspense, useState, useSyncExternalStore } from 'react';
import type { SheetProps } from './SheetDialog';

// The dialog library stays out of the first paint (the dashboard's bundle budget, issue 15). The
// dashboard preloads it once it has painted; from then on every Sheet keeps its dialog mounted,
// closed, so one that a pushed price opens (the liquidation modal) appears in the same render as
// the badge and the gauge.
type SheetDialogComponent = typeof import('./SheetDialog').default;
let loaded: SheetDialogComponent | null = null;
const listeners = new Set<() => void>();
const load = () =>
  import('./SheetDialog').then((module) => {
    loaded = module.default;
    for (const listener of listeners) listener();
    return module;
  });
const LazySheetDialog = lazy(load);

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const current = () => loaded;

/** Loads the dialog library ahead of the first dialog. */
export function preloadSheet(): Promise<void> {
  return loaded ? Promise.resolve() : load().then(() => undefined);
}

/** The product's dialog (SheetDialog.tsx). */
export function Sheet(props: SheetProps) {
  const SheetDialog = useSyncExternalStore(subscribe, current, current);
  const [opened, setOpened] = useState(props.open);
  if (props.open && !opened) setOpened(true);
  if (SheetDialog) return <SheetDialog {...props} />;
  if (!opened) return null;
  return (
    <Suspense fallback={null}>
      <LazySheetDialog {...props} />
    </Suspense>
  );
}
