import { useState } from 'react';
import { useWallet } from './WalletProvider';

/** The devnet wallet's own controls: faucet and key export. */
export function DevnetControls({ showAddress = true }: { showAddress?: boolean }) {
  const wallet = useWallet();
  const [funding, setFunding] = useState<'idle' | 'funding' | 'done' | 'failed'>('idle');
  const [exported, setExported] = useState<{ hex: string; wif: string } | null>(null);
  return (
    <section className="wallet-picker__devnet" aria-label="Devnet wallet">
      {showAddress && (
        <p>
          Sats address: <code>{wallet.account?.satsAddress}</code>
        </p>
      )}
      <button
        type="button"
        disabled={funding === 'funding' || !wallet.fund}
        onClick={() => {
          setFunding('funding');
          wallet.fund?.().then(
            () => setFunding('done'),
            () => setFunding('failed'),
          );
        }}
      >
        Fund
      </button>
      {funding === 'done' && <p role="status">1 BTC is on its way from the devnet faucet.</p>}
      {funding === 'failed' && <p role="alert">The devnet faucet did not answer. Try again.</p>}
      <button
        type="button"
        onClick={() => void wallet.exportDevnetKey?.().then((key) => setExported(key))}
      >
        Export key
      </button>
      {exported && (
        <dl>
          <dt>Hex</dt>
          <dd>
            <code>{exported.hex}</code>
          </dd>
          <dt>WIF</dt>
          <dd>
            <code>{exported.wif}</code>
          </dd>
        </dl>
      )}
    </section>
  );
}
