import { useEffect, useState } from 'react';
import { CircleCheck, X } from 'lucide-react';
import { CONTENT } from '@unit/protocol';
import { useSatsBalance } from '../api/balance';
import { useConfig } from '../api/config';
import { useIncomingSats } from '../api/incoming';
import { formatAmount } from '../ui/format';
import { useWallet } from '../wallet';

/** How long the 'arrived' word stays before it goes by itself. */
export const ARRIVED_NOTICE_MS = 10_000;

/**
 * Says that sats are on their way to the connected wallet until a block confirms them: a new devnet
 * wallet is paid by the faucet as it connects, and without this the page would only show an empty
 * balance. For the devnet wallet it names the faucet; for any wallet it follows any
 * payment still in the mempool. When the block comes it says the coins arrived, for a
 * few seconds or until dismissed.
 */
export function FundsArrivingNotice() {
  const config = useConfig();
  const wallet = useWallet();
  const address = wallet.account?.satsAddress ?? null;
  const incoming = useIncomingSats(config, address);
  const balance = useSatsBalance(config, address);
  const copy = CONTENT.walletFunds;
  const waiting = address && incoming.data && incoming.data > 0n ? incoming.data : null;
  // What was last seen on its way, for this address, and what arrived once it no longer is.
  const [seen, setSeen] = useState<{ address: string; sats: bigint } | null>(null);
  const [arrived, setArrived] = useState<bigint | null>(null);
  if (waiting && address && (seen?.address !== address || seen.sats !== waiting)) {
    setSeen({ address, sats: waiting });
    setArrived(null);
  } else if (!waiting && seen && incoming.data === 0n && seen.address === address) {
    setSeen(null);
    setArrived(seen.sats);
  } else if (seen && seen.address !== address) {
    setSeen(null);
    setArrived(null);
  }
  useEffect(() => {
    if (arrived === null) return;
    const timer = setTimeout(() => setArrived(null), ARRIVED_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [arrived]);

  if (!address) return null;
  if (waiting) {
    // The faucet's payment is the one a new devnet wallet waits for before it can open a vault.
    const firstFunds = wallet.walletId === 'devnet' && balance.data === 0n;
    const amount = formatAmount(waiting, 'BTC');
    return (
      <div className="banner banner--info funds-arriving" role="status">
        <span className="spinner banner__spinner" aria-hidden="true" />
        <span className="banner__text">
          <strong>{firstFunds ? copy.faucetPaying(amount) : copy.arriving}</strong>{' '}
          {firstFunds ? copy.faucetDetail : copy.arrivingDetail(amount)}
        </span>
        <span className="funds-arriving__bar" aria-hidden="true" />
      </div>
    );
  }
  if (arrived === null) return null;
  return (
    <div className="banner banner--success funds-arrived" role="status">
      <CircleCheck size={18} aria-hidden="true" className="funds-arrived__mark" />
      <span className="banner__text">
        <strong>{copy.arrived(formatAmount(arrived, 'BTC'))}</strong>
      </span>
      <button
        type="button"
        className="icon-btn"
        aria-label="Dismiss"
        onClick={() => setArrived(null)}
      >
        <X size={16} aria-hidden="true" />
      </button>
    </div>
  );
}
