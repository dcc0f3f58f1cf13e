import { lazy, Suspense, useState, useSyncExternalStore } from 'react';
import type { SheetProps } from './SheetDialog';

// The dialog library stays out of the first paint (the dashboard's bundle budget). The
// dashboard preloads it once it has painted; from then on every Sheet keeps its dialog mounted,
// closed, so one that a pushed price opens (the liquidation modal) appears in the same render as
// the badge and the gauge.
type SheetDialogModule = typeof import('./SheetDialog');
let loaded: SheetDialogModule | null = null;
let loading: Promise<SheetDialogModule> | null = null;
const listeners = new Set<() => void>();
const load = () =>
  (loading ??= import('./SheetDialog').then((module) => {
    loaded = module;
    for (const listener of listeners) listener();
    return module;
  }));
// Once loaded, React takes the module at once from a thenable that resolves synchronously.
const LazySheetDialog = lazy(() =>
  loaded
    ? ({
        then: (resolve: (m: SheetDialogModule) => void) => resolve(loaded!),
      } as Promise<SheetDialogModule>)
    : load(),
);

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const isLoaded = () => loaded !== null;

/** Loads the dialog library ahead of the first dialog. */
export function preloadSheet(): Promise<void> {
  return load().then(() => undefined);
}

/** The product's dialog (SheetDialog.tsx). */
export function Sheet(props: SheetProps) {
  const ready = useSyncExternalStore(subscribe, isLoaded, isLoaded);
  const [opened, setOpened] = useState(props.open);
  if (props.open && !opened) setOpened(true);
  if (!ready && !opened) return null;
  return (
    <Suspense fallback={null}>
      <LazySheetDialog {...props} />
    </Suspense>
  );
}
