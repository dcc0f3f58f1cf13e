import { lazy, Suspense, useState } from 'react';
import { CONTENT } from '@unit/protocol';
import { useWallet, WalletPicker } from '../wallet';

// Opened on demand: it stays out of the dashboard's first load (bundle budget).
const WalletMenu = lazy(() => import('./WalletMenu'));

export function WalletButton() {
  const wallet = useWallet();
  const [menuOpen, setMenuOpen] = useState(false);
  const [pickerOpen, setPickerOpen] = useState(false);
  const connected = wallet.status === 'connected' && wallet.account != null;
  // A picker left open by the connection it made must not pop up again after a disconnect.
  if (connected && pickerOpen) setPickerOpen(false);
  if (connected && wallet.account) {
    const a = wallet.account.satsAddress;
    return (
      <>
        <button
          type="button"
          className="btn wallet-btn"
          aria-haspopup="dialog"
          aria-label={`Wallet ${a.slice(0, 6)}…${a.slice(-4)}`}
          onClick={() => setMenuOpen(true)}
        >
          <span className="dot dot--green" aria-hidden="true" />
          {a.slice(0, 6)}…{a.slice(-4)}
        </button>
        {menuOpen && (
          <Suspense fallback={null}>
            <WalletMenu open={menuOpen} onOpenChange={setMenuOpen} />
          </Suspense>
        )}
      </>
    );
  }
  return (
    <>
      <button
        type="button"
        className="btn btn--primary wallet-btn"
        disabled={wallet.status === 'connecting' || wallet.restoring}
        onClick={() => setPickerOpen(true)}
      >
        {wallet.status === 'connecting' || wallet.restoring
          ? 'Connecting…'
          : CONTENT.walletPicker.connect}
      </button>
      <WalletPicker open={pickerOpen} onOpenChange={setPickerOpen} />
    </>
  );
}
