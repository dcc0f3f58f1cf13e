import './wallet-picker.css';
import { Dialog } from '@base-ui/react/dialog';
import { CONTENT } from '@unit/protocol';
import { useEffect, useRef } from 'react';
import { DevnetControls } from './DevnetControls';
import { WalletChoices } from './WalletChoices';
import { useWallet } from './WalletProvider';

export interface WalletPickerProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

export function WalletPicker({ open, onOpenChange }: WalletPickerProps) {
  const wallet = useWallet();

  // Close once a connection is made from this dialog. A new devnet wallet's faucet payment is then
  // followed on the page itself (layout/FundsArrivingNotice) until a block confirms it; Fund and
  // Export key live in the wallet menu.
  const closeOnConnect = useRef(false);
  useEffect(() => {
    if (closeOnConnect.current && wallet.status === 'connected') {
      closeOnConnect.current = false;
      onOpenChange(false);
    }
  }, [wallet.status, wallet.walletId, onOpenChange]);

  return (
    <Dialog.Root open={open} onOpenChange={(next) => onOpenChange(next)}>
      <Dialog.Portal>
        <Dialog.Backdrop className="sheet-backdrop" />
        <Dialog.Popup className="wallet-picker">
          <Dialog.Title className="wallet-picker__title">
            {CONTENT.walletPicker.connect}
          </Dialog.Title>
          <Dialog.Description className="wallet-picker__prompt">
            {CONTENT.walletPicker.prompt}
          </Dialog.Description>
          <WalletChoices onChoose={() => (closeOnConnect.current = true)} />
          {wallet.status === 'connected' && wallet.walletId === 'devnet' && <DevnetControls />}
          <Dialog.Close className="btn btn--ghost wallet-picker__close">Close</Dialog.Close>
        </Dialog.Popup>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
