import { useState } from 'react';
import { CONTENT } from '@unit/protocol';
import { useWallet, WalletPicker } from '../wallet';

export function WalletButton() {
  const wallet = useWallet();
  const [open, setOpen] = useState(false);
  if (wallet.status === 'connected' && wallet.account) {
    const a = wallet.account.satsAddress;
    return (
      <button
        type="button"
        className="btn wallet-btn"
        onClick={() => wallet.disconnect()}
        title="Disconnect wallet"
      >
        <span className="dot dot--green" aria-hidden="true" />
        {a.slice(0, 6)}…{a.slice(-4)}
      </button>
    );
  }
  return (
    <>
      <button
        type="button"
        className="btn btn--primary wallet-btn"
        disabled={wallet.status === 'connecting'}
        onClick={() => setOpen(true)}
      >
        {wallet.status === 'connecting' ? 'Connecting…' : CONTENT.walletPicker.connect}
      </button>
      <WalletPicker open={open} onOpenChange={setOpen} />
    </>
  );
}
