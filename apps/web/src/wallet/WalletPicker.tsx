import './wallet-picker.css';
import { Dialog } from '@base-ui/react/dialog';
import { CONTENT } from '@unit/protocol';
import { useEffect, useRef } from 'react';
import type { WalletId, WalletInfo } from './types';
import { DevnetControls } from './DevnetControls';
import { WalletMark } from './WalletMark';
import { LATE_INJECTION_POLL_MS, LATE_INJECTION_WINDOW_MS, useWallet } from './WalletProvider';

export interface WalletPickerProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

export function WalletPicker({ open, onOpenChange }: WalletPickerProps) {
  const wallet = useWallet();
  const { refreshAvailable } = wallet;

  // Extensions can inject after the page loaded: keep looking for a few seconds once opened.
  useEffect(() => {
    if (!open) return;
    refreshAvailable();
    const poll = setInterval(refreshAvailable, LATE_INJECTION_POLL_MS);
    const stop = setTimeout(() => clearInterval(poll), LATE_INJECTION_WINDOW_MS);
    return () => {
      clearInterval(poll);
      clearTimeout(stop);
    };
  }, [open, refreshAvailable]);

  const choose = async (id: WalletId) => {
    await wallet.connect(id);
  };

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
          <ul className="wallet-picker__list" aria-label="Wallets">
            {wallet.available.map((info) => (
              <WalletRow
                key={info.id}
                info={info}
                busy={wallet.status === 'connecting' && wallet.walletId === info.id}
                connected={wallet.status === 'connected' && wallet.walletId === info.id}
                onChoose={() => {
                  closeOnConnect.current = true;
                  void choose(info.id);
                }}
              />
            ))}
          </ul>
          {wallet.error && (
            <div className="wallet-picker__error" role="alert">
              <p>{wallet.error}</p>
              {wallet.wrongNetwork?.canSwitch && wallet.switchNetwork && (
                <button
                  type="button"
                  className="btn btn--secondary btn--small"
                  onClick={() => void wallet.switchNetwork?.()}
                >
                  Switch network
                </button>
              )}
            </div>
          )}
          {wallet.status === 'connected' && wallet.walletId === 'devnet' && <DevnetControls />}
          <Dialog.Close className="btn btn--ghost wallet-picker__close">Close</Dialog.Close>
        </Dialog.Popup>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function WalletRow(props: {
  info: WalletInfo;
  busy: boolean;
  connected: boolean;
  onChoose: () => void;
}) {
  const { info } = props;
  return (
    <li className="wallet-picker__row">
      <WalletMark id={info.id} />
      <span className="wallet-picker__name">{info.name}</span>
      {info.note && <span className="wallet-picker__note">{info.note}</span>}
      {!info.installed && info.downloadUrl ? (
        <a
          href={info.downloadUrl}
          target="_blank"
          rel="noopener noreferrer"
          className="btn btn--secondary btn--small"
          aria-label={`Get ${info.name}`}
        >
          Get
        </a>
      ) : !info.supported ? (
        <span className="wallet-picker__detected">Detected</span>
      ) : props.connected ? (
        <span className="wallet-picker__detected">Connected</span>
      ) : (
        <button
          type="button"
          className="btn btn--primary btn--small"
          onClick={props.onChoose}
          disabled={props.busy}
          aria-label={`Connect ${info.name}`}
        >
          {props.busy ? 'Connecting…' : 'Connect'}
        </button>
      )}
    </li>
  );
}
