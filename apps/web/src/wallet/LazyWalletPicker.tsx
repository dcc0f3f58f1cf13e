import { lazy, Suspense, useState } from 'react';
// The picker's styles stay global: the wallet menu (layout/WalletMenu.tsx) wears them too, and may
// open before the picker's code was ever loaded.
import './wallet-picker.css';
import type { WalletPickerProps } from './WalletPicker';

// The picker (and the dialog library under it) loads when a visitor first opens it, not with
// every page (the dashboard's bundle budget).
const Picker = lazy(() => import('./WalletPicker').then((m) => ({ default: m.WalletPicker })));

/** The wallet picker, mounted from its first opening on. */
export function WalletPicker(props: WalletPickerProps) {
  const [opened, setOpened] = useState(props.open);
  if (props.open && !opened) setOpened(true);
  if (!opened) return null;
  return (
    <Suspense fallback={null}>
      <Picker {...props} />
    </Suspense>
  );
}
