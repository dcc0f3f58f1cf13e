import './wallet-picker.css';
import { useEffect } from 'react';
import type { WalletId, WalletInfo } from './types';
import { WalletMark } from './WalletMark';
import { LATE_INJECTION_POLL_MS, LATE_INJECTION_WINDOW_MS, useWallet } from './WalletProvider';

/**
 * The wallets to connect, with what went wrong last: the wallet picker's body, and the create
 * drawer's step 2 (that step opened the picker as a second modal over a blank panel).
 */
export function WalletChoices({ onChoose }: { onChoose?: (id: WalletId) => void }) {
  const wallet = useWallet();
  const { refreshAvailable } = wallet;

  // Extensions can inject after the page loaded: keep looking for a few seconds once shown.
  useEffect(() => {
    refreshAvailable();
    const poll = setInterval(refreshAvailable, LATE_INJECTION_POLL_MS);
    const stop = setTimeout(() => clearInterval(poll), LATE_INJECTION_WINDOW_MS);
    return () => {
      clearInterval(poll);
      clearTimeout(stop);
    };
  }, [refreshAvailable]);

  return (
    <>
      <ul className="wallet-picker__list" aria-label="Wallets">
        {wallet.available.map((info) => (
          <WalletRow
            key={info.id}
            info={info}
            busy={wallet.status === 'connecting' && wallet.walletId === info.id}
            connected={wallet.status === 'connected' && wallet.walletId === info.id}
            onChoose={() => {
              onChoose?.(info.id);
              void wallet.connect(info.id);
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
    </>
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
