import { useWallet } from '../wallet';

/**
 * A wallet switched to another network inside the extension is let go (its addresses must never
 * reach the server); this says why, on every page, with the switch where the wallet offers one.
 */
export function WrongNetworkNotice() {
  const wallet = useWallet();
  const wrong = wallet.status === 'disconnected' ? wallet.wrongNetwork : null;
  if (!wrong) return null;
  return (
    <div className="banner banner--error" role="alert">
      <span>{wrong.message}</span>
      {wrong.canSwitch && wallet.switchNetwork && (
        <button
          type="button"
          className="btn btn--small"
          onClick={() => void wallet.switchNetwork?.()}
        >
          Switch network
        </button>
      )}
    </div>
  );
}
