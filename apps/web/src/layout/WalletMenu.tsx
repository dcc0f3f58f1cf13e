import { Dialog } from '@base-ui/react/dialog';
import { Copy } from 'lucide-react';
import { CONTENT } from '@unit/protocol';
import { useSatsBalance } from '../api/balance';
import { useConfig } from '../api/config';
import { unitBalanceCents, useUnitOutputs } from '../api/unit-outputs';
import { formatAmount } from '../ui/format';
import { useToasts } from '../ui/toasts';
import { useWallet } from '../wallet';
import { DevnetControls, WalletMark } from '../wallet/controls';
import { DevnetPrice } from '../wallet/DevnetPrice';

/**
 * The connected wallet at a glance: which wallet and network, its addresses (copyable), what it
 * holds, the devnet faucet and key export, and Disconnect. Clicking one's own address must never
 * drop the connection by surprise, so disconnecting lives here, behind its own button.
 */
export default function WalletMenu(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const wallet = useWallet();
  const config = useConfig();
  const toasts = useToasts();
  const account = wallet.account;
  const sats = useSatsBalance(config, account?.satsAddress ?? null);
  const runes = useUnitOutputs(config, account?.runesAddress ?? null);
  const name = wallet.available.find((w) => w.id === wallet.walletId)?.name ?? 'Wallet';
  if (!account) return null;
  const sameAddress = account.runesAddress === account.satsAddress;
  return (
    <Dialog.Root open={props.open} onOpenChange={(next) => props.onOpenChange(next)}>
      <Dialog.Portal>
        <Dialog.Backdrop className="sheet-backdrop" />
        <Dialog.Popup className="wallet-picker">
          <Dialog.Title className="wallet-picker__title wallet-menu__title">
            {wallet.walletId && <WalletMark id={wallet.walletId} size={28} />}
            {name}
          </Dialog.Title>
          <Dialog.Description className="wallet-picker__prompt">
            Connected on {config.network}.
          </Dialog.Description>
          <dl className="wallet-menu__facts">
            <AddressRow
              label={sameAddress ? 'Address' : 'Payment address'}
              address={account.satsAddress}
              onCopy={() => void toasts.copy(account.satsAddress)}
            />
            {!sameAddress && (
              <AddressRow
                label="UNIT (runes) address"
                address={account.runesAddress}
                onCopy={() => void toasts.copy(account.runesAddress)}
              />
            )}
            <div>
              <dt>Bitcoin</dt>
              <dd className="num">
                {sats.data != null ? formatAmount(sats.data, 'BTC') : sats.isError ? '—' : '…'}
              </dd>
            </div>
            <div>
              <dt>UNIT</dt>
              <dd className="num">
                {runes.data
                  ? formatAmount(unitBalanceCents(runes.data), 'UNIT')
                  : runes.isError
                    ? '—'
                    : '…'}
              </dd>
            </div>
          </dl>
          {wallet.walletId === 'devnet' && <DevnetControls showAddress={false} />}
          {config.network === 'devnet' && <DevnetPrice />}
          <footer className="wallet-menu__actions">
            <Dialog.Close className="btn btn--ghost">Close</Dialog.Close>
            <button
              type="button"
              className="btn btn--danger"
              onClick={() => {
                props.onOpenChange(false);
                wallet.disconnect();
              }}
            >
              {CONTENT.walletPicker.disconnect}
            </button>
          </footer>
        </Dialog.Popup>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function AddressRow(props: { label: string; address: string; onCopy: () => void }) {
  return (
    <div>
      <dt>{props.label}</dt>
      <dd className="wallet-menu__address">
        <code>{props.address}</code>
        <button
          type="button"
          className="btn btn--secondary btn--small"
          onClick={props.onCopy}
          aria-label={`Copy ${props.label.toLowerCase()}`}
        >
          <Copy size={14} aria-hidden="true" />
          Copy
        </button>
      </dd>
    </div>
  );
}
