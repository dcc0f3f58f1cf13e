import { CONTENT } from '@unit/protocol';
import { useSatsBalance } from '../api/balance';
import { useConfig } from '../api/config';
import { useIncomingSats } from '../api/incoming';
import { formatAmount } from '../ui/format';
import { useWallet } from '../wallet';

/**
 * Says that sats are on their way to the connected wallet until a block confirms them: a new devnet
 * wallet is paid by the faucet as it connects, and without this the page would only show an empty
 * balance (issue 15). For the devnet wallet it names the faucet; for any wallet it follows any
 * payment still in the mempool.
 */
export function FundsArrivingNotice() {
  const config = useConfig();
  const wallet = useWallet();
  const address = wallet.account?.satsAddress ?? null;
  const incoming = useIncomingSats(config, address);
  const balance = useSatsBalance(config, address);
  if (!address || !incoming.data || incoming.data <= 0n) return null;
  const copy = CONTENT.walletFunds;
  // The faucet's payment is the one a new devnet wallet waits for before it can open a vault.
  const firstFunds = wallet.walletId === 'devnet' && balance.data === 0n;
  return (
    <div className="banner banner--info funds-arriving" role="status">
      <span className="spinner banner__spinner" aria-hidden="true" />
      <span className="banner__text">
        <strong>{firstFunds ? copy.faucetPaying : copy.arriving}</strong>{' '}
        {copy.arrivingDetail(formatAmount(incoming.data, 'BTC'))}
      </span>
      <span className="funds-arriving__bar" aria-hidden="true" />
    </div>
  );
}
