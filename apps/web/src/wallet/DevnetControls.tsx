import { useState } from 'react';
import { Droplets, KeyRound, TriangleAlert } from 'lucide-react';
import { useWallet } from './WalletProvider';

/**
 * The devnet wallet's own controls: the faucet (secondary) and key export (danger). The key is shown
 * only after a warning that says what it is: whoever has it controls the funds.
 */
export function DevnetControls({ showAddress = true }: { showAddress?: boolean }) {
  const wallet = useWallet();
  const [funding, setFunding] = useState<'idle' | 'funding' | 'done' | 'failed'>('idle');
  const [exportStep, setExportStep] = useState<'idle' | 'confirming' | 'shown'>('idle');
  const [exported, setExported] = useState<{ hex: string; wif: string } | null>(null);
  return (
    <section className="wallet-picker__devnet" aria-label="Devnet wallet">
      {showAddress && (
        <p>
          Sats address: <code>{wallet.account?.satsAddress}</code>
        </p>
      )}
      <div className="wallet-picker__devnet-actions">
        <button
          type="button"
          className="btn btn--secondary btn--small"
          disabled={funding === 'funding' || !wallet.fund}
          onClick={() => {
            setFunding('funding');
            wallet.fund?.().then(
              () => setFunding('done'),
              () => setFunding('failed'),
            );
          }}
        >
          <Droplets size={14} aria-hidden="true" />
          Fund
        </button>
        {exportStep === 'idle' && (
          <button
            type="button"
            className="btn btn--danger btn--small"
            onClick={() => setExportStep('confirming')}
          >
            <KeyRound size={14} aria-hidden="true" />
            Export key
          </button>
        )}
      </div>
      {funding === 'done' && <p role="status">1 BTC is on its way from the devnet faucet.</p>}
      {funding === 'failed' && <p role="alert">The devnet faucet did not answer. Try again.</p>}
      {exportStep === 'confirming' && (
        <div role="alertdialog" aria-labelledby="export-key-warning" className="export-key">
          <p id="export-key-warning" className="wallet-picker__warning">
            <TriangleAlert size={16} aria-hidden="true" />
            <span>
              <strong>Anyone with this key controls the funds.</strong> Showing it puts it on your
              screen in plain text: do not share it, paste it into a website or show it on a call.
            </span>
          </p>
          <div className="wallet-picker__devnet-actions">
            <button
              type="button"
              className="btn btn--secondary btn--small"
              onClick={() => setExportStep('idle')}
            >
              Cancel
            </button>
            <button
              type="button"
              className="btn btn--danger-solid btn--small"
              onClick={() =>
                void wallet.exportDevnetKey?.().then((key) => {
                  setExported(key);
                  setExportStep('shown');
                })
              }
            >
              Show the private key
            </button>
          </div>
        </div>
      )}
      {exportStep === 'shown' && exported && (
        <dl className="export-key__values">
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
